package sdktest

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// holdUpstream wraps upstream so that its response flushes the first write
// and then stays open until the request's context ends (the client hung
// up or was cancelled). done is closed when the first request handled has
// returned, that is when the upstream has observed the end of the request.
func holdUpstream(upstream http.Handler) (held http.Handler, done <-chan struct{}) {
	ch := make(chan struct{})
	var once sync.Once
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer once.Do(func() { close(ch) })
		hw := &holdingWriter{ResponseWriter: w, ctx: r.Context()}
		upstream.ServeHTTP(hw, r)
		if !hw.wrote {
			<-r.Context().Done()
		}
	}), ch
}

// holdingWriter passes the first Write through, flushes it, then blocks
// until ctx ends; later writes fail with the context's error.
type holdingWriter struct {
	http.ResponseWriter
	ctx   context.Context
	wrote bool
}

func (w *holdingWriter) Write(p []byte) (int, error) {
	if w.wrote {
		return 0, w.ctx.Err()
	}
	w.wrote = true
	n, err := w.ResponseWriter.Write(p)
	w.Flush()
	<-w.ctx.Done()
	return n, err
}

// Flush flushes what has been written; a handler that flushes works unchanged.
func (w *holdingWriter) Flush() {
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// checkCancelMidStream cancels the caller's context on the first event,
// while the upstream holds the stream open. After cancelling, the sink
// refuses every event with the context's error, as the host's sink does.
func checkCancelMidStream(t testing.TB, upstream http.Handler, req *sdk.Request, open func(testing.TB, http.Handler) generator) {
	t.Helper()
	held, upstreamDone := holdUpstream(upstream)
	p := open(t, held)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := 0
	err := p.Generate(ctx, req, sdk.SinkFunc(func(context.Context, sdk.Event) error {
		events++
		if events == 1 {
			cancel()
			return nil
		}
		return ctx.Err()
	}))
	if events == 0 {
		t.Fatalf("Generate returned %v before any event: the upstream's first write must yield one", err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled mid-stream: got %v, want context.Canceled", err)
	}
	<-upstreamDone // the upstream request ended with the caller's context, it was not leaked
}

// checkSinkError gives Generate a sink that fails on the first event, while
// the upstream holds the stream open.
func checkSinkError(t testing.TB, upstream http.Handler, req *sdk.Request, open func(testing.TB, http.Handler) generator) {
	t.Helper()
	held, upstreamDone := holdUpstream(upstream)
	p := open(t, held)
	refused := errors.New("sdktest: the sink refuses the event")
	calls := 0
	err := p.Generate(context.Background(), req, sdk.SinkFunc(func(context.Context, sdk.Event) error {
		calls++
		return refused
	}))
	if !errors.Is(err, refused) {
		t.Errorf("sink error: got %v, want the sink's error", err)
	}
	if calls != 1 {
		t.Errorf("the sink was called %d times, want once: Generate must stop at its first error", calls)
	}
	<-upstreamDone // the upstream request was ended, not leaked
}
