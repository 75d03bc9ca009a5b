package api

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
)

// flushCounter is a ResponseWriter that keeps what was written and counts
// the flushes.
type flushCounter struct {
	h       http.Header
	body    bytes.Buffer
	flushes int
}

func (f *flushCounter) Header() http.Header         { return f.h }
func (f *flushCounter) Write(p []byte) (int, error) { return f.body.Write(p) }
func (f *flushCounter) WriteHeader(int)             {}
func (f *flushCounter) Flush()                      { f.flushes++ }

// TestSendBatchFlushesOnce: events that arrive together are written as
// the same frames as one by one, with one flush for all of them.
func TestSendBatchFlushesOnce(t *testing.T) {
	t.Parallel()
	events := []sdk.Event{start("glm-4.6"), text("Hel"), text("lo"), toolCall(0, "call_1", "weather", `{"city":"Oslo"}`), usage(5, 2), finish(sdk.FinishToolCalls)}
	for _, d := range []struct {
		name string
		d    dialect
	}{{"openai", openaiDialect{}}, {"anthropic", anthropicDialect{}}} {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			run := func(send func(x *exchange) error) *flushCounter {
				cfg := defaultConfig()
				fixedIDs()(&cfg)
				cfg.now = func() time.Time { return testTime }
				w := &flushCounter{h: http.Header{}}
				x := newExchange(cfg, newRecorder(w, testTime), d.d, &call{model: "default", req: &sdk.Request{}, stream: true, includeUsage: true}, "default", context.Background(), func() {})
				if err := send(x); err != nil {
					t.Fatal(err)
				}
				x.finish(&Answer{Provider: "glm"}, nil)
				return w
			}
			one := run(func(x *exchange) error {
				for _, ev := range events {
					if err := x.Send(context.Background(), ev); err != nil {
						return err
					}
				}
				return nil
			})
			batched := run(func(x *exchange) error { return x.SendBatch(context.Background(), events) })
			if one.body.String() != batched.body.String() {
				t.Errorf("one by one:\n%s\nbatched:\n%s", one.body.String(), batched.body.String())
			}
			// Three content events, or one batch; the end is written for
			// net/http to send with the stream's last chunk.
			if one.flushes != 3 || batched.flushes != 1 {
				t.Errorf("%d flushes one by one, %d batched; want 3 and 1", one.flushes, batched.flushes)
			}
		})
	}
}

// TestSendBatchRefusal: an event the exchange refuses ends the batch there;
// the frames of the events before it still reach the client.
func TestSendBatchRefusal(t *testing.T) {
	t.Parallel()
	w := &flushCounter{h: http.Header{}}
	x := newExchange(defaultConfig(), newRecorder(w, testTime), openaiDialect{}, &call{model: "default", req: &sdk.Request{}, stream: true}, "default", context.Background(), func() {})
	err := x.SendBatch(context.Background(), []sdk.Event{text("abc"), toolCall(0, "call_1", "weather", `{"city":`), text("never")})
	if sdk.ClassOf(err) != sdk.ClassPermanent {
		t.Fatalf("err = %v, want the malformed call's permanent error", err)
	}
	if got := w.body.String(); !bytes.Contains([]byte(got), []byte(`"content":"abc"`)) || bytes.Contains([]byte(got), []byte("never")) {
		t.Errorf("client got %q", got)
	}
	if w.flushes != 1 {
		t.Errorf("%d flushes, want 1", w.flushes)
	}
}
