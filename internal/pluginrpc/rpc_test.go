package pluginrpc

import (
	"context"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

// connect serves what register adds on an in-memory listener, with the
// message limits of the real plugin connection, and dials it.
func connect(tb testing.TB, register func(*grpc.Server)) *grpc.ClientConn {
	tb.Helper()
	return connectWith(tb, register, DialOptions(), func(ctx context.Context, ln *bufconn.Listener) (net.Conn, error) { return ln.DialContext(ctx) })
}

// connectWith is connect with the client's options and its dialer.
func connectWith(tb testing.TB, register func(*grpc.Server), opts []grpc.DialOption, dial func(context.Context, *bufconn.Listener) (net.Conn, error)) *grpc.ClientConn {
	tb.Helper()
	ln := bufconn.Listen(1 << 20)
	srv := NewGRPCServer(nil)
	register(srv)
	go srv.Serve(ln)
	conn, err := grpc.NewClient("passthrough:///bufconn",
		append(opts,
			grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return dial(ctx, ln) }),
			grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		conn.Close()
		srv.Stop()
	})
	return conn
}

// providerPair is a plugin's provider served over gRPC and the host's
// client of it.
func providerPair(tb testing.TB, impl sdk.Provider) *ProviderClient {
	conn := connect(tb, func(s *grpc.Server) { pb.RegisterProviderServer(s, &providerServer{impl: impl}) })
	return &ProviderClient{client: pb.NewProviderClient(conn)}
}

// egressPair is the host's egress served over gRPC and the plugin's client
// of it.
func egressPair(tb testing.TB, impl sdk.Egress) *egressClient {
	conn := connect(tb, func(s *grpc.Server) { pb.RegisterEgressServer(s, &egressServer{impl: impl}) })
	return &egressClient{client: pb.NewEgressClient(conn)}
}

// provideFunc is a provider that is only its Generate.
type provideFunc func(ctx context.Context, req *sdk.Request, out sdk.Sink) error

func (f provideFunc) Info() sdk.Info                              { return sdk.Info{Name: "fake"} }
func (f provideFunc) Configure(context.Context, sdk.Config) error { return nil }
func (f provideFunc) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	return f(ctx, req, out)
}

// egressFunc adapts a function to sdk.Egress.
type egressFunc func(ctx context.Context, req *sdk.EgressRequest) (*sdk.EgressResponse, error)

func (f egressFunc) Do(ctx context.Context, req *sdk.EgressRequest) (*sdk.EgressResponse, error) {
	return f(ctx, req)
}
