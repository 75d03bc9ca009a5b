package pluginrpc

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/test/bufconn"

	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

// workCount is a work that counts.
type workCount struct{ begun, ended atomic.Int64 }

func (w *workCount) Begin() { w.begun.Add(1) }
func (w *workCount) End()   { w.ended.Add(1) }

// TestCallsToAxonServicesAreWork: a Generate counts as work from its start
// to its end, a unary call too; go-plugin's kind of service (here gRPC
// health, as the host's ping) does not.
func TestCallsToAxonServicesAreWork(t *testing.T) {
	var w workCount
	ln := bufconn.Listen(1 << 20)
	srv := grpc.NewServer(countWork(&w)...)
	started, release := make(chan struct{}), make(chan struct{})
	pb.RegisterProviderServer(srv, &providerServer{impl: provideFunc(func(ctx context.Context, _ *sdk.Request, out sdk.Sink) error {
		close(started)
		<-release
		return out.Send(ctx, sdk.Event{Type: sdk.EventFinish, Finish: sdk.FinishStop})
	})})
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go srv.Serve(ln)
	defer srv.Stop()
	conn, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return ln.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // hang guard
	defer cancel()

	if _, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatal(err)
	}
	if b, e := w.begun.Load(), w.ended.Load(); b != 0 || e != 0 {
		t.Fatalf("a health check counted as work: begun %d, ended %d", b, e)
	}

	client := &ProviderClient{client: pb.NewProviderClient(conn)}
	done := make(chan error, 1)
	go func() {
		done <- client.Generate(ctx, &sdk.Request{}, sdk.SinkFunc(func(context.Context, sdk.Event) error { return nil }))
	}()
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("Generate never reached the plugin")
	}
	if b, e := w.begun.Load(), w.ended.Load(); b != 1 || e != 0 {
		t.Fatalf("during Generate: begun %d, ended %d; want 1, 0", b, e)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if b, e := w.begun.Load(), w.ended.Load(); b != 1 || e != 1 {
		t.Fatalf("after Generate: begun %d, ended %d; want 1, 1", b, e)
	}

	if _, err := pb.NewProviderClient(conn).Models(ctx, &pb.Empty{}); err != nil {
		t.Fatal(err)
	}
	if b, e := w.begun.Load(), w.ended.Load(); b != 2 || e != 2 {
		t.Fatalf("after a unary call: begun %d, ended %d; want 2, 2", b, e)
	}
}
