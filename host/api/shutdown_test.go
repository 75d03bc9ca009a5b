package api

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

// untilCanceled is a backend that sends what it is given, tells started,
// then waits for its context to end, as a chain does while a provider
// thinks.
func untilCanceled(started chan<- struct{}, events ...sdk.Event) *fakeBackend {
	return &fakeBackend{gen: func(ctx context.Context, _ string, _ *sdk.Request, out sdk.Sink, commit func(Answer)) (*Answer, error) {
		commit(Answer{Provider: "glm"})
		for _, ev := range events {
			if err := out.Send(ctx, ev); err != nil {
				return nil, err
			}
		}
		started <- struct{}{}
		<-ctx.Done()
		return &Answer{Provider: "glm"}, ctx.Err()
	}}
}

// TestShutdown: when the shutdown context ends, a stream still running
// ends with its format's in-band error (no [DONE], no message_stop), a
// whole response still waiting gets a 503 / 529 with retry-after, the
// backend calls are cancelled, and new requests are refused the same way.
func TestShutdown(t *testing.T) {
	t.Parallel()
	for _, f := range []struct {
		name, path, stream, whole string
		status                    int
		lastEvent                 sseEvent
		wholeBody, refusedBody    string
	}{{
		name: "openai", path: "/v1/chat/completions", status: http.StatusServiceUnavailable,
		stream:    `{"model":"default","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		whole:     openaiAsk,
		lastEvent: sseEvent{Data: `{"error":{"message":"axon is shutting down: the response was cut off before its end; retry the request","type":"server_error","param":null,"code":"shutting_down"}}`},
		wholeBody: `{"error":{"message":"axon is shutting down; retry the request","type":"server_error","param":null,"code":"shutting_down"}}`,
	}, {
		name: "anthropic", path: "/v1/messages", status: 529,
		stream:    `{"model":"default","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		whole:     anthropicAsk,
		lastEvent: sseEvent{Event: "error", Data: `{"type":"error","error":{"type":"overloaded_error","message":"axon is shutting down: the response was cut off before its end; retry the request"}}`},
		wholeBody: `{"type":"error","error":{"type":"overloaded_error","message":"axon is shutting down; retry the request"}}`,
	}} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			shutdown, stop := context.WithCancel(context.Background())
			defer stop()
			started := make(chan struct{}, 2)
			obs := make(chanObserver, 3)
			srv := newServer(t, untilCanceled(started, text("partial")), WithShutdown(shutdown), WithObserver(obs))

			streamResp := post(t, srv, f.path, f.stream)
			br := bufio.NewReader(streamResp.Body)
			for line := ""; !strings.Contains(line, "partial"); {
				var err error
				if line, err = br.ReadString('\n'); err != nil {
					t.Fatalf("reading the first content: %v", err)
				}
			}
			wholeResp := make(chan *http.Response, 1)
			go func() {
				resp, err := srv.Client().Post(srv.URL+f.path, "application/json", strings.NewReader(f.whole))
				if err != nil {
					t.Error(err)
					resp = nil
				}
				wholeResp <- resp
			}()
			<-started
			<-started
			stop()

			events := parseSSE(t, "data: x\n\n"+readAll(t, br)) // the partial line was consumed; start on an event boundary
			if last := events[len(events)-1]; last != f.lastEvent {
				t.Errorf("last event %+v, want %+v", last, f.lastEvent)
			}
			for _, ev := range events {
				if ev.Data == "[DONE]" || ev.Event == "message_stop" {
					t.Errorf("a cut stream ended as complete: %+v", ev)
				}
			}
			resp := <-wholeResp
			if resp == nil {
				return
			}
			body := readAll(t, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != f.status || resp.Header.Get("retry-after") != "1" {
				t.Errorf("whole response: status %d, retry-after %q, want %d and 1", resp.StatusCode, resp.Header.Get("retry-after"), f.status)
			}
			sameJSON(t, body, f.wholeBody)

			refused := post(t, srv, f.path, f.whole)
			if b := readAll(t, refused.Body); refused.StatusCode != f.status {
				t.Errorf("a request after shutdown: status %d: %s", refused.StatusCode, b)
			} else {
				sameJSON(t, b, f.wholeBody)
			}
			var recs []Record
			for range 3 {
				r := <-obs
				recs = append(recs, Record{Stream: r.Stream, Status: r.Status, Code: r.Code, InBand: r.InBand, Canceled: r.Canceled})
			}
			for _, want := range []Record{
				{Stream: true, Status: 200, Code: "shutting_down", InBand: true},
				{Status: f.status, Code: "shutting_down"},
			} {
				if !containsRecord(recs, want) {
					t.Errorf("records %+v lack %+v", recs, want)
				}
			}
		})
	}
}

func containsRecord(recs []Record, want Record) bool {
	for _, r := range recs {
		if cmp.Equal(r, want) {
			return true
		}
	}
	return false
}

// TestClientGoneOutcome: a request whose client went away is reported as
// such (Canceled, StatusClientClosedRequest), not as a server error or a
// committed failure, before and after its stream started; and the backend
// can tell from Send's error that the client left.
func TestClientGoneOutcome(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, body string
		sent       bool // content reached the client before it left
	}{
		{"waiting for a whole answer", openaiAsk, false},
		{"mid-stream", `{"model":"default","stream":true,"messages":[{"role":"user","content":"hi"}]}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sendErr := make(chan error, 1)
			started := make(chan struct{}, 1)
			b := &fakeBackend{gen: func(ctx context.Context, _ string, _ *sdk.Request, out sdk.Sink, commit func(Answer)) (*Answer, error) {
				commit(Answer{Provider: "glm"})
				if err := out.Send(ctx, text("token")); err != nil {
					return nil, err
				}
				started <- struct{}{}
				<-ctx.Done()
				err := out.Send(ctx, text("token"))
				sendErr <- err
				return &Answer{Provider: "glm"}, sdk.Transientf("the provider broke off")
			}}
			obs := make(chanObserver, 1)
			srv := newServer(t, b, WithObserver(obs))
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/chat/completions", strings.NewReader(c.body))
				if resp, err := srv.Client().Do(req); err == nil {
					_, _ = bufio.NewReader(resp.Body).ReadString('\n')
					<-ctx.Done()
					resp.Body.Close()
				}
			}()
			<-started
			cancel()
			<-done
			if err := <-sendErr; !errors.Is(err, context.Canceled) {
				t.Errorf("Send after the client left: %v, want an error wrapping context.Canceled", err)
			}
			rec := <-obs
			rec.Latency, rec.FirstByte = 0, 0
			want := Record{Route: "POST /v1/chat/completions", Model: "default", Stream: c.sent, Status: StatusClientClosedRequest,
				Canceled: true, Provider: "glm", Chain: "default", Events: 1}
			if diff := cmp.Diff(want, rec); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
		})
	}
}
