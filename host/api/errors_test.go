package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

// exhausted stands for the chain engine's failure after every hop: it
// wraps the last hop's error and knows the earliest retry hint of all.
type exhausted struct {
	last  error
	after time.Duration
}

func (e *exhausted) Error() string {
	return "chain \"default\": no provider answered: " + e.last.Error()
}
func (e *exhausted) Unwrap() error                 { return e.last }
func (e *exhausted) RetryAfter() time.Duration     { return e.after }
func wrapped(err error, after time.Duration) error { return &exhausted{last: err, after: after} }

func TestBackendErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		// OpenAI shape
		status int
		typ    string
		code   string
		// Anthropic shape
		aStatus int
		aType   string
		aPrefix string // the Anthropic message starts with it
		// retry headers
		shouldRetry string
		retryAfter  string
		retryMS     string
		message     string // what the client is told, when it is not err.Error()
	}{
		{"transient, with the chain's earliest hint", wrapped(&sdk.Error{Class: sdk.ClassTransient, Status: 529, RetryAfter: 9 * time.Second}, 2500*time.Millisecond),
			503, "server_error", "upstream_unavailable", 529, "overloaded_error", "chain", "true", "3", "2500", ""},
		{"transient, the provider's hint", &sdk.Error{Class: sdk.ClassTransient, Status: 429, RetryAfter: time.Second},
			503, "server_error", "upstream_unavailable", 529, "overloaded_error", "transient", "true", "1", "1000", ""},
		{"transient timeout, no hint", sdk.ErrTimeout,
			503, "server_error", "upstream_unavailable", 529, "overloaded_error", "transient", "true", "", "", ""},
		{"permanent: the provider refused the request as malformed", wrapped(&sdk.Error{Class: sdk.ClassPermanent, Status: 400, Message: "tools.0: bad schema"}, 0),
			400, "invalid_request_error", "invalid_request", 400, "invalid_request_error", "chain", "false", "", "", ""},
		{"permanent: the configured model does not exist upstream", &sdk.Error{Class: sdk.ClassPermanent, Status: 404},
			502, "server_error", "upstream_error", 502, "api_error", "permanent", "false", "", "", ""},
		{"permanent without status", &sdk.Error{Class: sdk.ClassPermanent, Code: "egress_denied", Message: "host not allowed"},
			502, "server_error", "upstream_error", 502, "api_error", "permanent (egress_denied)", "false", "", "", ""},
		{"auth required upstream is axon's configuration, not the client's token", &sdk.Error{Class: sdk.ClassAuthRequired, Status: 401},
			502, "server_error", "upstream_auth_failed", 502, "api_error", "auth_required", "false", "", "", ""},
		{"quota exhausted", &sdk.Error{Class: sdk.ClassQuotaExhausted, Status: 429, RetryAfter: time.Hour},
			429, "insufficient_quota", "insufficient_quota", 402, "billing_error", "quota_exhausted", "false", "", "", ""},
		{"context overflow", &sdk.Error{Class: sdk.ClassContextOverflow, Message: "131072 tokens > 128000"},
			400, "invalid_request_error", "context_length_exceeded", 400, "invalid_request_error", "prompt is too long: ", "false", "", "", ""},
		{"content filter", &sdk.Error{Class: sdk.ClassContentFilter, Code: "refusal"},
			400, "invalid_request_error", "content_filter", 400, "invalid_request_error", "the provider refused", "false", "", "",
			"the provider refused to answer this request (content filter)"},
		{"content filter after the chain stopped, with the plugin's message", wrapped(&sdk.Error{Class: sdk.ClassContentFilter, Status: 400, Message: "blocked by the provider's content policy"}, 0),
			400, "invalid_request_error", "content_filter", 400, "invalid_request_error", "the provider refused", "false", "", "",
			"the provider refused to answer this request (content filter): blocked by the provider's content policy"},
		{"a deadline without a class", fmt.Errorf("chain \"default\": %w", context.DeadlineExceeded),
			503, "server_error", "timeout", 529, "overloaded_error", "chain", "true", "", "", ""},
		{"no class", errors.New("plugin crashed oddly"),
			500, "server_error", "internal_error", 500, "api_error", "plugin crashed", "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ans := &Answer{Chain: "default", Provider: "ollama", Trail: "glm#1 fallback transient/529 t=3ms, ollama#1 fallback transient t=1ms"}
			srv := newServer(t, &fakeBackend{answer: ans, err: tt.err})
			for _, stream := range []string{"false", "true"} {
				resp := post(t, srv, "/v1/chat/completions", `{"model":"default","stream":`+stream+`,"messages":[{"role":"user","content":"hi"}]}`)
				body := readAll(t, resp.Body)
				message := tt.err.Error()
				if tt.message != "" {
					message = tt.message
				}
				want := fmt.Sprintf(`{"error":{"message":%q,"type":%q,"param":null,"code":%q}}`, message, tt.typ, tt.code)
				checkErrorResponse(t, resp, body, tt.status, want, tt.shouldRetry, tt.retryAfter, tt.retryMS)
				checkAxonHeaders(t, resp.Header, ans)

				resp = post(t, srv, "/v1/messages", `{"model":"default","max_tokens":5,"stream":`+stream+`,"messages":[{"role":"user","content":"hi"}]}`)
				body = readAll(t, resp.Body)
				msg := message
				if tt.aPrefix == "prompt is too long: " {
					msg = tt.aPrefix + msg
				} else if !strings.HasPrefix(msg, tt.aPrefix) {
					t.Fatalf("test case: message %q does not start with %q", msg, tt.aPrefix)
				}
				want = fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q}}`, tt.aType, msg)
				checkErrorResponse(t, resp, body, tt.aStatus, want, tt.shouldRetry, tt.retryAfter, tt.retryMS)
			}
		})
	}
}

func checkErrorResponse(t *testing.T, resp *http.Response, body string, status int, want, shouldRetry, retryAfter, retryMS string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("status %d, want %d: %s", resp.StatusCode, status, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	sameJSON(t, body, want)
	for _, h := range []struct{ key, want string }{{"x-should-retry", shouldRetry}, {"retry-after", retryAfter}, {"retry-after-ms", retryMS}} {
		if got := resp.Header.Get(h.key); got != h.want {
			t.Errorf("%s: %q, want %q", h.key, got, h.want)
		}
	}
}

func checkAxonHeaders(t *testing.T, h http.Header, want *Answer) {
	t.Helper()
	got := Answer{Provider: h.Get("x-axon-provider"), Chain: h.Get("x-axon-chain"), Trail: h.Get("x-axon-trail")}
	if diff := cmp.Diff(Answer{Provider: want.Provider, Chain: want.Chain, Trail: want.Trail}, got); diff != "" {
		t.Errorf("axon headers (-want +got):\n%s", diff)
	}
}

// recorderObserver keeps the Records it is given.
type recorderObserver struct {
	mu   sync.Mutex
	recs []Record
}

func (o *recorderObserver) ObserveRequest(r Record) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.recs = append(o.recs, r)
}

func (o *recorderObserver) last(t *testing.T) Record {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.recs) == 0 {
		t.Fatal("no request observed")
	}
	return o.recs[len(o.recs)-1]
}

// TestFailureAfterContent: a stream that breaks after content ends with the
// format's error event, never with [DONE] or message_stop, and the final
// trail arrives as a trailer.
func TestFailureAfterContent(t *testing.T) {
	t.Parallel()
	broke := &sdk.Error{Class: sdk.ClassTransient, Code: "idle_timeout", Message: "stream idle for 30s"}
	tests := []struct {
		name  string
		err   error
		class sdk.Class
		code  string
	}{
		{"the backend reports the break", broke, sdk.ClassTransient, "upstream_unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			events := []sdk.Event{start("glm-4.6"), text("The answer is")}
			ans := &Answer{Chain: "default", Provider: "glm", Trail: "glm#1 stop transient/idle_timeout committed t=30001ms"}
			obs := &recorderObserver{}
			srv := newServer(t, &fakeBackend{events: events, commit: &Answer{Provider: "glm", Trail: "glm#1"}, answer: ans, err: tt.err}, WithObserver(obs))

			resp := post(t, srv, "/v1/chat/completions", `{"model":"default","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
			body := readAll(t, resp.Body)
			r := readOpenAIStream(t, parseSSE(t, body))
			if resp.StatusCode != http.StatusOK || r.Content != "The answer is" || r.Done || r.Error == nil {
				t.Fatalf("want status 200, the partial text, an error event and no [DONE]; got %d:\n%s", resp.StatusCode, body)
			}
			if r.Error["type"] != "server_error" || r.Error["code"] != tt.code {
				t.Errorf("error event %v", r.Error)
			}
			if got := resp.Trailer.Get("x-axon-trail"); got != ans.Trail {
				t.Errorf("trailer x-axon-trail %q, want %q", got, ans.Trail)
			}
			if got := resp.Header.Get("x-axon-trail"); got != "glm#1" {
				t.Errorf("header x-axon-trail %q, want the announced %q", got, "glm#1")
			}
			rec := obs.last(t)
			if !rec.InBand || rec.Status != http.StatusOK || rec.Class != tt.class || rec.Code != tt.code || rec.Committed != (tt.err != nil) {
				t.Errorf("record %+v", rec)
			}

			resp = post(t, srv, "/v1/messages", `{"model":"default","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
			body = readAll(t, resp.Body)
			a := readAnthropicStream(t, parseSSE(t, body))
			if resp.StatusCode != http.StatusOK || a.Stopped || a.Error == nil || len(a.Content) != 1 || a.Content[0].Text != "The answer is" {
				t.Fatalf("want status 200, the partial text, an error event and no message_stop; got %d:\n%s", resp.StatusCode, body)
			}
			if a.Error["type"] != "overloaded_error" {
				t.Errorf("error event %v", a.Error)
			}
		})
	}
}

// TestBackendMisbehaviour: a backend that sends a tool call no client could
// run gets an error from Send, and the client a failure, never a clean
// answer. (A stream cut short or going on after its finish is the chain's
// to catch: host/chain's TestRunStreaming.)
func TestBackendMisbehaviour(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		events []sdk.Event
		want   string // a substring of the error Send returned
	}{
		{"tool call without a name", []sdk.Event{{Type: sdk.EventToolCall, ToolCall: &sdk.ToolCall{ID: "x"}}}, "without a tool name"},
		{"tool call without the call", []sdk.Event{{Type: sdk.EventToolCall}}, "without a tool name"},
		{"tool input not JSON", []sdk.Event{toolCall(0, "c", "f", `{"a":`)}, "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sendErrs := make(chan error, 1)
			b := &fakeBackend{gen: func(ctx context.Context, _ string, _ *sdk.Request, out sdk.Sink, commit func(Answer)) (*Answer, error) {
				for _, ev := range tt.events {
					if err := out.Send(ctx, ev); err != nil {
						sendErrs <- err
						return nil, err
					}
				}
				sendErrs <- nil
				return nil, nil
			}}
			srv := newServer(t, b)
			resp := post(t, srv, "/v1/chat/completions", openaiAsk)
			body := readAll(t, resp.Body)
			if sendErr := <-sendErrs; sendErr == nil || !strings.Contains(sendErr.Error(), tt.want) {
				t.Errorf("Send returned %v, want an error containing %q", sendErr, tt.want)
			}
			if resp.StatusCode == http.StatusOK {
				t.Errorf("the client got a clean answer: %s", body)
			}
		})
	}
}

// TestSendAfterFinish: a backend goroutine that outlives Generate cannot
// write into a finished response.
func TestSendAfterFinish(t *testing.T) {
	t.Parallel()
	sinks := make(chan sdk.Sink, 1)
	b := &fakeBackend{gen: func(ctx context.Context, _ string, _ *sdk.Request, out sdk.Sink, commit func(Answer)) (*Answer, error) {
		sinks <- out
		return nil, errors.Join(out.Send(ctx, text("hi")), out.Send(ctx, finish(sdk.FinishStop)))
	}}
	srv := newServer(t, b)
	resp := post(t, srv, "/v1/chat/completions", openaiAsk)
	if body := readAll(t, resp.Body); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	srv.Close() // the handler has returned: the response is finished
	if err := (<-sinks).Send(context.Background(), text("late")); err == nil {
		t.Error("Send after the response was finished succeeded")
	}
}
