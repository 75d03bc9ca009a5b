package pluginrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"

	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

// hangGuard bounds a wait that only a bug makes long.
const hangGuard = 10 * time.Second

// TestGenerateStreamsEventByEvent runs the provider in lockstep with the
// host: it sends the next event only once the host's sink has the previous
// one. Any event held back to fill a batch would stall it.
func TestGenerateStreamsEventByEvent(t *testing.T) {
	t.Parallel()
	got := make(chan string)
	c := providerPair(t, provideFunc(func(ctx context.Context, _ *sdk.Request, out sdk.Sink) error {
		for i := range 5 {
			want := fmt.Sprint("event-", i)
			if err := out.Send(ctx, sdk.Event{Type: sdk.EventTextDelta, Text: want}); err != nil {
				return err
			}
			select {
			case g := <-got:
				if g != want {
					return sdk.Permanentf("host got %q, want %q", g, want)
				}
			case <-time.After(hangGuard):
				return sdk.Permanentf("%s was held back", want)
			}
		}
		return nil
	}))
	err := c.Generate(context.Background(), &sdk.Request{}, sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error {
		got <- ev.Text
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
}

// batchRecorder is a host sink that keeps every event and the size of each
// call.
type batchRecorder struct {
	mu      sync.Mutex
	events  []string
	batches []int
}

func (r *batchRecorder) Send(ctx context.Context, ev sdk.Event) error {
	return r.SendBatch(ctx, []sdk.Event{ev})
}

func (r *batchRecorder) SendBatch(_ context.Context, evs []sdk.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, len(evs))
	for _, ev := range evs {
		r.events = append(r.events, ev.Text)
	}
	return nil
}

// TestGenerateKeepsOrderAndError: however the events are grouped on the
// way, the host gets every one in order, then the provider's error with
// its class.
func TestGenerateKeepsOrderAndError(t *testing.T) {
	t.Parallel()
	const n = 2000
	var want []string
	for i := range n {
		want = append(want, fmt.Sprint(i))
	}
	quota := &sdk.Error{Class: sdk.ClassQuotaExhausted, Code: "insufficient_quota", Message: "out of credit"}
	c := providerPair(t, provideFunc(func(ctx context.Context, _ *sdk.Request, out sdk.Sink) error {
		for _, s := range want {
			if err := out.Send(ctx, sdk.Event{Type: sdk.EventTextDelta, Text: s}); err != nil {
				return err
			}
		}
		return quota
	}))
	rec := &batchRecorder{}
	err := c.Generate(context.Background(), &sdk.Request{}, rec)
	if !errors.Is(err, sdk.ErrQuotaExhausted) {
		t.Errorf("err = %v, want the provider's quota error", err)
	}
	if diff := cmp.Diff(want, rec.events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	t.Logf("%d events in %d calls", n, len(rec.batches))
}

// blockingStream is a Generate stream whose first Send waits for release.
type blockingStream struct {
	grpc.ServerStream
	entered chan struct{} // closed when the first Send has begun
	release chan struct{}
	mu      sync.Mutex
	sent    [][]string // the texts of each message
}

func (s *blockingStream) Context() context.Context { return context.Background() }

func (s *blockingStream) Send(ev *pb.Event) error {
	texts := []string{ev.GetText()}
	for _, m := range ev.GetMore() {
		texts = append(texts, m.GetText())
	}
	s.mu.Lock()
	first := len(s.sent) == 0
	s.sent = append(s.sent, texts)
	s.mu.Unlock()
	if first {
		close(s.entered)
		<-s.release
	}
	return nil
}

// TestBatchSinkSendsWhatQueuedTogether: while a message is on its way, the
// events sent meanwhile queue, and the next message carries them all, in
// order.
func TestBatchSinkSendsWhatQueuedTogether(t *testing.T) {
	t.Parallel()
	st := &blockingStream{entered: make(chan struct{}), release: make(chan struct{})}
	s := newBatchSink(st)
	ctx := context.Background()
	send := func(text string) {
		if err := s.Send(ctx, sdk.Event{Type: sdk.EventTextDelta, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	send("a")
	<-st.entered // "a" is on its way, alone: nothing waited for company
	for _, text := range []string{"b", "c", "d"} {
		send(text)
	}
	close(st.release)
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"a"}, {"b", "c", "d"}}, st.sent); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if err := s.Send(ctx, sdk.Event{Type: sdk.EventTextDelta, Text: "late"}); err == nil {
		t.Error("an event after close was taken")
	}
}

// TestGenerateForAHostWithoutBatches: a host that does not ask for batches
// (an older one) gets one event per message, as before.
func TestGenerateForAHostWithoutBatches(t *testing.T) {
	t.Parallel()
	conn := connect(t, func(s *grpc.Server) {
		pb.RegisterProviderServer(s, &providerServer{impl: provideFunc(func(ctx context.Context, _ *sdk.Request, out sdk.Sink) error {
			for i := range 200 {
				if err := out.Send(ctx, sdk.Event{Type: sdk.EventTextDelta, Text: fmt.Sprint(i)}); err != nil {
					return err
				}
			}
			return nil
		})})
	})
	stream, err := pb.NewProviderClient(conn).Generate(context.Background(), &pb.GenerateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(ev.GetMore()) > 0 {
			t.Fatalf("a message with %d more events", len(ev.GetMore()))
		}
		got = append(got, ev.GetText())
	}
	var want []string
	for i := range 200 {
		want = append(want, fmt.Sprint(i))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
