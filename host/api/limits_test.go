package api

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
)

// chanObserver hands each Record to the test as the request completes.
type chanObserver chan Record

func (o chanObserver) ObserveRequest(r Record) { o <- r }

// TestAnswerLimit: a whole answer that grows past WithMaxAnswerBytes ends
// with a 502 of the client's format naming the limit, the backend call is
// cancelled, and the host never holds much more than the limit although the
// backend tries to send a gigabyte. Not parallel: it reads the heap.
func TestAnswerLimit(t *testing.T) {
	const limit = 8 << 20
	delta := strings.Repeat("x", 1<<20)
	for _, format := range []struct{ name, path, body, want string }{
		{"openai", "/v1/chat/completions", openaiAsk,
			`{"error":{"message":"the answer exceeded the limit of 8388608 bytes for a response that is not streamed; ask for a shorter answer or send \"stream\": true","type":"server_error","param":null,"code":"answer_too_large"}}`},
		{"anthropic", "/v1/messages", anthropicAsk,
			`{"type":"error","error":{"type":"api_error","message":"the answer exceeded the limit of 8388608 bytes for a response that is not streamed; ask for a shorter answer or send \"stream\": true"}}`},
	} {
		for _, kind := range []struct {
			name string
			ev   sdk.Event
		}{
			{"text", text(delta)},
			{"reasoning", think(delta)},
			{"tool calls", toolCall(0, "", "write", `{"data":"`+delta+`"}`)},
		} {
			t.Run(format.name+"/"+kind.name, func(t *testing.T) {
				var base, peak uint64
				var sent int
				canceled := make(chan bool, 1)
				b := &fakeBackend{gen: func(ctx context.Context, _ string, _ *sdk.Request, out sdk.Sink, commit func(Answer)) (*Answer, error) {
					var ms runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&ms)
					base = ms.HeapInuse
					for range 1 << 10 { // 1 GiB
						if err := out.Send(ctx, kind.ev); err != nil {
							<-ctx.Done() // the call is cancelled: a hang here fails by the test timeout
							canceled <- true
							return nil, err
						}
						sent++
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapInuse)
					}
					canceled <- false
					return nil, nil
				}}
				srv := newServer(t, b, withMaxAnswerBytes(limit))
				resp := post(t, srv, format.path, format.body)
				body := readAll(t, resp.Body)
				if resp.StatusCode != http.StatusBadGateway {
					t.Fatalf("status %d, want 502: %.200s", resp.StatusCode, body)
				}
				sameJSON(t, body, format.want)
				if !<-canceled {
					t.Error("the backend sent the whole gigabyte")
				}
				if sent > limit>>20 {
					t.Errorf("%d MiB accepted, want at most the limit (%d MiB)", sent, limit>>20)
				}
				t.Logf("heap grew %d KiB", (int64(peak)-int64(base))>>10)
				if grew := int64(peak) - int64(base); grew > 4*limit {
					t.Errorf("the heap grew by %d MiB for a limit of %d MiB", grew>>20, limit>>20)
				}
			})
		}
	}
}

// TestAnswerLimitStreams: a streamed answer keeps nothing, so the limit of
// whole answers does not apply to it.
func TestAnswerLimitStreams(t *testing.T) {
	t.Parallel()
	events := []sdk.Event{}
	for range 16 {
		events = append(events, text(strings.Repeat("y", 64<<10)))
	}
	events = append(events, finish(sdk.FinishStop))
	srv := newServer(t, &fakeBackend{events: events}, withMaxAnswerBytes(64<<10))
	resp := post(t, srv, "/v1/chat/completions", `{"model":"default","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	body := readAll(t, resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Fatalf("status %d, stream ending %q", resp.StatusCode, body[max(0, len(body)-80):])
	}
}

// TestAnswerLimitBackendError: the front door's limit is what the client
// is told, whatever error the backend makes of the refused event.
func TestAnswerLimitBackendError(t *testing.T) {
	t.Parallel()
	b := &fakeBackend{gen: func(ctx context.Context, _ string, _ *sdk.Request, out sdk.Sink, commit func(Answer)) (*Answer, error) {
		commit(Answer{Provider: "glm"})
		err := out.Send(ctx, text(strings.Repeat("z", 100)))
		if err == nil {
			return nil, errors.New("the limit was not enforced")
		}
		return &Answer{Provider: "glm"}, sdk.Transientf("something else")
	}}
	obs := make(chanObserver, 1)
	srv := newServer(t, b, withMaxAnswerBytes(10), WithObserver(obs))
	resp := post(t, srv, "/v1/messages", anthropicAsk)
	body := readAll(t, resp.Body)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "limit of 10 bytes") {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if rec := <-obs; rec.Code != "answer_too_large" || rec.Committed || rec.Provider != "glm" {
		t.Errorf("record %+v: want code answer_too_large, not committed, provider glm", rec)
	}
}

// gatedBackend answers "ok" once released; entered receives a value as
// each call starts, so a test knows what is in flight without sleeping.
type gatedBackend struct {
	fakeBackend
	entered chan string // the model of each call as it starts
	release chan struct{}
}

func newGatedBackend(models ...ModelInfo) *gatedBackend {
	g := &gatedBackend{fakeBackend: fakeBackend{models: models}, entered: make(chan string, 64), release: make(chan struct{})}
	g.gen = func(ctx context.Context, model string, _ *sdk.Request, out sdk.Sink, _ func(Answer)) (*Answer, error) {
		g.entered <- model
		select {
		case <-g.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		for _, ev := range okEvents {
			if err := out.Send(ctx, ev); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	return g
}

// TestOverload: requests beyond the in-flight bounds are refused at once
// with the format's overload error and retry-after, while the ones admitted
// complete; other routes are not counted; a refused or failed request gives
// its slot back.
func TestOverload(t *testing.T) {
	t.Parallel()
	wantOpenAI := func(msg string) string {
		return `{"error":{"message":"` + msg + `; retry later","type":"server_error","param":null,"code":"overloaded"}}`
	}
	wantAnthropic := func(msg string) string {
		return `{"type":"error","error":{"type":"overloaded_error","message":"` + msg + `; retry later"}}`
	}
	tests := []struct {
		name            string
		total, perChain int
		busy            []string // models of the requests that fill the bounds
		model           string   // of the request refused
		message         string
	}{
		{"total", 2, 64, []string{"default", "other"}, "default", "axon is serving its limit of 2 requests at once"},
		{"per chain, pins count for their chain", 8, 2, []string{"default", "default/glm"}, "default/ollama", `chain \"default\" is serving its limit of 2 requests at once`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newGatedBackend(append(testModels, ModelInfo{ID: "other", Chain: "other"})...)
			srv := newServer(t, g, withMaxInFlight(tt.total, tt.perChain), withOverloadRetryAfter(2*time.Second))
			done := make(chan int, len(tt.busy))
			for _, m := range tt.busy {
				go func() {
					resp, err := srv.Client().Post(srv.URL+"/v1/chat/completions", "application/json",
						strings.NewReader(`{"model":"`+m+`","messages":[{"role":"user","content":"hi"}]}`))
					if err != nil {
						done <- 0
						return
					}
					resp.Body.Close()
					done <- resp.StatusCode
				}()
			}
			for range tt.busy {
				<-g.entered
			}
			for _, f := range []struct{ path, body, want string }{
				{"/v1/chat/completions", `{"model":"` + tt.model + `","messages":[{"role":"user","content":"hi"}]}`, wantOpenAI(tt.message)},
				{"/v1/messages", `{"model":"` + tt.model + `","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, wantAnthropic(tt.message)},
			} {
				resp := post(t, srv, f.path, f.body)
				body := readAll(t, resp.Body)
				want := http.StatusServiceUnavailable
				if f.path == "/v1/messages" {
					want = 529
				}
				if resp.StatusCode != want {
					t.Fatalf("%s: status %d, want %d: %s", f.path, resp.StatusCode, want, body)
				}
				sameJSON(t, body, f.want)
				if h := resp.Header; h.Get("retry-after") != "2" || h.Get("retry-after-ms") != "2000" || h.Get("x-should-retry") != "true" {
					t.Errorf("%s: retry headers %q %q %q, want 2, 2000, true", f.path, h.Get("retry-after"), h.Get("retry-after-ms"), h.Get("x-should-retry"))
				}
			}
			if resp, err := srv.Client().Get(srv.URL + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
				t.Errorf("healthz while full: %v %v", resp, err) // no generation: never refused for overload
			} else {
				resp.Body.Close()
			}
			close(g.release)
			for range tt.busy {
				if s := <-done; s != http.StatusOK {
					t.Errorf("an admitted request ended with status %d", s)
				}
			}
			// Every slot is free again: as many requests as the bounds allow
			// are admitted at once, bad ones included.
			for range tt.total + 1 {
				if resp := post(t, srv, "/v1/chat/completions", `{"model":`); resp.StatusCode != http.StatusBadRequest {
					t.Fatalf("bad JSON: status %d", resp.StatusCode)
				}
			}
			for _, m := range tt.busy {
				if resp := post(t, srv, "/v1/chat/completions", `{"model":"`+m+`","messages":[{"role":"user","content":"hi"}]}`); resp.StatusCode != http.StatusOK {
					t.Errorf("after release: status %d", resp.StatusCode)
				}
			}
		})
	}
}
