package api

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

var okEvents = []sdk.Event{text("ok"), finish(sdk.FinishStop)}

func TestAuth(t *testing.T) {
	t.Parallel()
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("axon_requests_total 1\n")) })
	tests := []struct {
		name         string
		token        string // configured; "" is no authentication
		method, path string
		header       []string
		status       int
		shape        string // "openai", "anthropic" or "mount" error body, "" on success
	}{
		{"no token configured: open", "", "POST", "/v1/chat/completions", nil, 200, ""},
		{"missing", "s3cret", "POST", "/v1/chat/completions", nil, 401, "openai"},
		{"wrong bearer", "s3cret", "POST", "/v1/chat/completions", []string{"Authorization", "Bearer s3cre"}, 401, "openai"},
		{"bearer", "s3cret", "POST", "/v1/chat/completions", []string{"Authorization", "Bearer s3cret"}, 200, ""},
		{"bearer scheme in lower case", "s3cret", "POST", "/v1/chat/completions", []string{"Authorization", "bearer s3cret"}, 200, ""},
		{"basic is no bearer", "s3cret", "POST", "/v1/chat/completions", []string{"Authorization", "Basic s3cret"}, 401, "openai"},
		{"x-api-key", "s3cret", "POST", "/v1/messages", []string{"x-api-key", "s3cret"}, 200, ""},
		{"wrong x-api-key", "s3cret", "POST", "/v1/messages", []string{"x-api-key", "nope"}, 401, "anthropic"},
		{"missing on messages", "s3cret", "POST", "/v1/messages", nil, 401, "anthropic"},
		{"healthz needs none", "s3cret", "GET", "/healthz", nil, 200, ""},
		{"models need it", "s3cret", "GET", "/v1/models", nil, 401, "openai"},
		{"models", "s3cret", "GET", "/v1/models", []string{"x-api-key", "s3cret"}, 200, ""},
		{"metrics need it", "s3cret", "GET", "/metrics", nil, 401, "openai"},
		{"metrics", "s3cret", "GET", "/metrics", []string{"Authorization", "Bearer s3cret"}, 200, ""},
		{"unknown routes are not revealed", "s3cret", "GET", "/v1/secret", nil, 401, "openai"},
		{"a mount needs it", "s3cret", "GET", "/v1/things", nil, 401, "mount"},
		{"below a mount too", "s3cret", "POST", "/v1/things/1", []string{"x-api-key", "nope"}, 401, "mount"},
		{"a mount", "s3cret", "GET", "/v1/things/1", []string{"Authorization", "Bearer s3cret"}, 200, ""},
		{"a mount, no token configured", "", "GET", "/v1/things", nil, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, &fakeBackend{events: okEvents}, WithToken(tt.token), WithMetrics(metrics), WithMount("/v1/things", newTestMount()))
			body := openaiAsk
			if tt.path == "/v1/messages" {
				body = anthropicAsk
			}
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i+1 < len(tt.header); i += 2 {
				req.Header.Set(tt.header[i], tt.header[i+1])
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got := readAll(t, resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, got)
			}
			switch tt.shape {
			case "openai":
				sameJSON(t, got, `{"error":{"message":"missing or wrong axon token: send it as \"Authorization: Bearer <token>\" or \"x-api-key: <token>\"","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
			case "anthropic":
				sameJSON(t, got, `{"type":"error","error":{"type":"authentication_error","message":"missing or wrong axon token: send it as \"Authorization: Bearer <token>\" or \"x-api-key: <token>\""}}`)
			case "mount":
				sameJSON(t, got, `{"mount_error":{"status":401,"code":"invalid_api_key","message":"missing or wrong axon token: send it as \"Authorization: Bearer <token>\" or \"x-api-key: <token>\""}}`)
			}
			if tt.status == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}

// TestStreamHeadersAndFlush: the headers name the announced provider and
// arrive, with the first event, while the backend is still generating.
func TestStreamHeadersAndFlush(t *testing.T) {
	t.Parallel()
	for _, format := range []struct{ path, body, firstContent string }{
		{"/v1/chat/completions", `{"model":"default/glm","stream":true,"messages":[{"role":"user","content":"hi"}]}`, `"content":"Hel"`},
		{"/v1/messages", `{"model":"default/glm","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, `"text":"Hel"`},
	} {
		t.Run(format.path, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			b := &fakeBackend{gen: func(ctx context.Context, _ string, _ *sdk.Request, out sdk.Sink, commit func(Answer)) (*Answer, error) {
				commit(Answer{Provider: "glm", Model: "glm-4.6", Chain: "default/glm", Trail: "glm#1"})
				if err := out.Send(ctx, text("Hel")); err != nil {
					return nil, err
				}
				<-release // the client has the first event before the rest is generated
				for _, ev := range []sdk.Event{text("lo"), finish(sdk.FinishStop)} {
					if err := out.Send(ctx, ev); err != nil {
						return nil, err
					}
				}
				return &Answer{Provider: "glm", Model: "glm-4.6", Chain: "default/glm", Trail: "glm#1 ok t=12ms"}, nil
			}}
			srv := newServer(t, b)
			resp := post(t, srv, format.path, format.body)
			checkAxonHeaders(t, resp.Header, &Answer{Provider: "glm", Chain: "default/glm", Trail: "glm#1"})
			if resp.Header.Get("Cache-Control") != "no-cache" {
				t.Errorf("Cache-Control %q", resp.Header.Get("Cache-Control"))
			}
			br := bufio.NewReader(resp.Body)
			var seen strings.Builder
			for !strings.Contains(seen.String(), format.firstContent) {
				line, err := br.ReadString('\n')
				if err != nil {
					t.Fatalf("reading the first event: %v (got %q)", err, seen.String())
				}
				seen.WriteString(line)
			}
			close(release)
			rest := readAll(t, br)
			if !strings.Contains(rest, "lo") {
				t.Errorf("the rest of the stream lacks the second delta: %s", rest)
			}
			if got := resp.Trailer.Get("x-axon-trail"); got != "glm#1 ok t=12ms" {
				t.Errorf("trailer x-axon-trail %q", got)
			}
		})
	}
}

func TestWholeResponseHeaders(t *testing.T) {
	t.Parallel()
	ans := &Answer{Provider: "ollama", Model: "qwen2.5:3b", Chain: "default", Trail: "glm#1 fallback transient/529 t=3ms, ollama#1 ok t=40ms"}
	srv := newServer(t, &fakeBackend{events: okEvents, answer: ans})
	for _, p := range []struct{ path, body string }{{"/v1/chat/completions", openaiAsk}, {"/v1/messages", anthropicAsk}} {
		resp := post(t, srv, p.path, p.body)
		body := readAll(t, resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d: %s", p.path, resp.StatusCode, body)
		}
		checkAxonHeaders(t, resp.Header, ans)
		if !strings.Contains(body, `"model":"qwen2.5:3b"`) {
			t.Errorf("%s: the answer does not name the model that answered: %s", p.path, body)
		}
	}
}

func TestModelSelection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		model    string
		status   int
		backend  string // the model the backend was asked for
		errorMsg string
	}{
		{"a chain", "default", 200, "default", ""},
		{"a pin", "default/ollama", 200, "default/ollama", ""},
		{"unknown", "gpt-4o", 404, "", `model \"gpt-4o\" does not exist here; available: default, default/glm, default/ollama (GET /v1/models lists them)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := &fakeBackend{events: okEvents}
			srv := newServer(t, b)
			resp := post(t, srv, "/v1/chat/completions", `{"model":"`+tt.model+`","messages":[{"role":"user","content":"hi"}]}`)
			body := readAll(t, resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if tt.errorMsg != "" {
				sameJSON(t, body, `{"error":{"message":"`+tt.errorMsg+`","type":"invalid_request_error","param":"model","code":"model_not_found"}}`)
				resp = post(t, srv, "/v1/messages", `{"model":"`+tt.model+`","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`)
				sameJSON(t, readAll(t, resp.Body), `{"type":"error","error":{"type":"not_found_error","message":"`+tt.errorMsg+`"}}`)
				return
			}
			if got, _ := b.asked(); got != tt.backend {
				t.Errorf("backend asked for %q, want %q", got, tt.backend)
			}
		})
	}
}

// TestBackendGetsCanonicalRequest: what reaches the backend is the decoded
// request, for either format.
func TestBackendGetsCanonicalRequest(t *testing.T) {
	t.Parallel()
	body := `{"model":"default","max_tokens":64,"system":"be brief","messages":[{"role":"user","content":"hi"}],"temperature":0.3}`
	b := &fakeBackend{events: okEvents}
	srv := newServer(t, b)
	resp := post(t, srv, "/v1/messages", body)
	if got := readAll(t, resp.Body); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, got)
	}
	_, got := b.asked()
	want := &sdk.Request{System: sdk.SystemPrompt("be brief"), MaxTokens: 64, Temperature: ptr(0.3),
		Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "hi"}}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestRequestErrors(t *testing.T) {
	t.Parallel()
	big := `{"model":"default","messages":[{"role":"user","content":"` + strings.Repeat("x", 200) + `"}]}`
	tests := []struct {
		name, method, path, body string
		chunked                  bool // send without Content-Length
		status                   int
		want                     string
		allow                    string
	}{
		{"bad JSON, OpenAI", "POST", "/v1/chat/completions", `{"model":`, false, 400,
			`{"error":{"message":"the request body is not valid JSON: unexpected end of JSON input","type":"invalid_request_error","param":null,"code":"invalid_json"}}`, ""},
		{"bad JSON, Anthropic", "POST", "/v1/messages", `{"model":`, false, 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"the request body is not valid JSON: unexpected end of JSON input"}}`, ""},
		{"missing max_tokens", "POST", "/v1/messages", `{"model":"default","messages":[{"role":"user","content":"hi"}]}`, false, 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: field required"}}`, ""},
		{"over the limit", "POST", "/v1/chat/completions", big, false, 413,
			`{"error":{"message":"the request body is larger than the limit of 128 bytes","type":"invalid_request_error","param":null,"code":"request_too_large"}}`, ""},
		{"over the limit without Content-Length", "POST", "/v1/messages", big, true, 413,
			`{"type":"error","error":{"type":"request_too_large","message":"the request body is larger than the limit of 128 bytes"}}`, ""},
		{"wrong method", "GET", "/v1/chat/completions", "", false, 405,
			`{"error":{"message":"GET /v1/chat/completions: use POST","type":"invalid_request_error","param":null,"code":"method_not_allowed"}}`, "POST"},
		{"no such route", "POST", "/v1/completions", "{}", false, 404,
			`{"error":{"message":"no route POST /v1/completions","type":"invalid_request_error","param":null,"code":"not_found"}}`, ""},
		{"no such route under messages", "POST", "/v1/messages/count_tokens", "{}", false, 404,
			`{"type":"error","error":{"type":"not_found_error","message":"no route POST /v1/messages/count_tokens"}}`, ""},
		{"metrics without a handler", "GET", "/metrics", "", false, 404,
			`{"error":{"message":"no route GET /metrics","type":"invalid_request_error","param":null,"code":"not_found"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, &fakeBackend{events: okEvents}, withMaxBodyBytes(128))
			var r interface{ Read([]byte) (int, error) } = strings.NewReader(tt.body)
			if tt.chunked {
				r = struct{ *strings.Reader }{strings.NewReader(tt.body)} // hides Len: no Content-Length
			}
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, r)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got := readAll(t, resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, got)
			}
			sameJSON(t, got, tt.want)
			if a := resp.Header.Get("Allow"); a != tt.allow {
				t.Errorf("Allow %q, want %q", a, tt.allow)
			}
		})
	}
}

func TestModelsAndHealth(t *testing.T) {
	t.Parallel()
	srv := newServer(t, &fakeBackend{})
	get := func(path string) (int, string) {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.StatusCode, readAll(t, resp.Body)
	}
	status, body := get("/v1/models")
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	sameJSON(t, body, `{"object":"list","has_more":false,"first_id":"default","last_id":"default/ollama","data":[
		{"id":"default","object":"model","created":1767225600,"owned_by":"axon","type":"model","display_name":"chain default","created_at":"2026-01-01T00:00:00Z","chain":"default"},
		{"id":"default/glm","object":"model","created":1767225600,"owned_by":"axon","type":"model","display_name":"chain default, provider glm (glm-4.6)","created_at":"2026-01-01T00:00:00Z","chain":"default","provider":"glm","upstream_model":"glm-4.6","routable":true},
		{"id":"default/ollama","object":"model","created":1767225600,"owned_by":"axon","type":"model","display_name":"chain default, provider ollama (qwen2.5:3b)","created_at":"2026-01-01T00:00:00Z","chain":"default","provider":"ollama","upstream_model":"qwen2.5:3b","routable":true}]}`)

	status, body = get("/v1/models/default/glm")
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	sameJSON(t, body, `{"id":"default/glm","object":"model","created":1767225600,"owned_by":"axon","type":"model","display_name":"chain default, provider glm (glm-4.6)","created_at":"2026-01-01T00:00:00Z","chain":"default","provider":"glm","upstream_model":"glm-4.6","routable":true}`)

	gated := newServer(t, &fakeBackend{models: []ModelInfo{{ID: "default/gpt", Chain: "default", Provider: "gpt", Model: "gpt-5", Tier: "api", GoodAt: []string{"code"}, Gate: "paid"}}})
	resp, err := gated.Client().Get(gated.URL + "/v1/models/default/gpt")
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, readAll(t, resp.Body), `{"id":"default/gpt","object":"model","created":1767225600,"owned_by":"axon","type":"model",
		"display_name":"chain default, provider gpt (gpt-5), not routed: paid tier, billing not enabled for it","created_at":"2026-01-01T00:00:00Z",
		"chain":"default","provider":"gpt","upstream_model":"gpt-5","tier":"api","good_at":["code"],"routable":false,"gate":"paid"}`)
	resp.Body.Close()

	if status, body = get("/v1/models/nope"); status != 404 || !strings.Contains(body, "model_not_found") {
		t.Errorf("unknown model: status %d: %s", status, body)
	}
	if status, body = get("/healthz"); status != 200 {
		t.Errorf("healthz: status %d: %s", status, body)
	} else {
		sameJSON(t, body, `{"status":"ok"}`)
	}
}

// tickingClock advances a millisecond every time it is read.
func tickingClock() func() time.Time {
	var mu sync.Mutex
	now := testTime
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Millisecond)
		return now
	}
}

func TestObserver(t *testing.T) {
	t.Parallel()
	obs := &recorderObserver{}
	ans := &Answer{Provider: "glm", Chain: "default"}
	srv := newServer(t, &fakeBackend{events: []sdk.Event{start("glm-4.6"), text("a"), text("b"), finish(sdk.FinishStop)}, answer: ans},
		WithObserver(obs), withClock(tickingClock()))

	resp := post(t, srv, "/v1/messages", `{"model":"default","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	readAll(t, resp.Body)
	rec := obs.last(t)
	if rec.Latency <= 0 || rec.FirstByte <= 0 || rec.FirstByte >= rec.Latency {
		t.Errorf("latency %v, first byte %v: want 0 < first byte < latency", rec.Latency, rec.FirstByte)
	}
	rec.Latency, rec.FirstByte = 0, 0
	want := Record{Route: "POST /v1/messages", Model: "default", Stream: true, Status: 200, Provider: "glm", Chain: "default", Events: 4}
	if diff := cmp.Diff(want, rec); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}

	resp = post(t, srv, "/v1/chat/completions", `{"model":"default","messages":[]}`)
	readAll(t, resp.Body)
	rec = obs.last(t)
	rec.Latency = 0
	want = Record{Route: "POST /v1/chat/completions", Status: 400, Code: "missing_required_parameter"}
	if diff := cmp.Diff(want, rec); diff != "" {
		t.Errorf("record of a bad request (-want +got):\n%s", diff)
	}
}

// TestClientGoneStopsBackend: when the client hangs up mid-stream, the
// backend's next Send fails, so the chain stops generating for nobody.
func TestClientGoneStopsBackend(t *testing.T) {
	t.Parallel()
	returned := make(chan error, 1)
	b := &fakeBackend{gen: func(ctx context.Context, _ string, _ *sdk.Request, out sdk.Sink, commit func(Answer)) (*Answer, error) {
		for {
			if err := out.Send(ctx, text("token ")); err != nil {
				returned <- err
				return nil, err
			}
		}
	}}
	obs := &recorderObserver{}
	srv := newServer(t, b, WithObserver(obs))
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"default","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	if err := <-returned; err == nil {
		t.Fatal("Send kept succeeding after the client left")
	}
	srv.Close() // waits for the handler, so the record is complete
	if rec := obs.last(t); !rec.Canceled {
		t.Errorf("record %+v: want Canceled", rec)
	}
}

// TestHealthReportsWhatNeedsAnOperator: /healthz is 503 with the check's
// error while it fails (a session log that cannot be written), 200 after.
func TestHealthReportsWhatNeedsAnOperator(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	failing.Store(true)
	srv := newServer(t, &fakeBackend{}, WithHealth(func() error {
		if failing.Load() {
			return errors.New("session s1: log failed: no space left on device")
		}
		return nil
	}))
	get := func() (int, string) {
		resp, err := srv.Client().Get(srv.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(); code != http.StatusServiceUnavailable || body != `{"error":"session s1: log failed: no space left on device","status":"degraded"}` {
		t.Fatalf("failing: %d %s", code, body)
	}
	failing.Store(false)
	if code, body := get(); code != http.StatusOK || body != `{"status":"ok"}` {
		t.Fatalf("recovered: %d %s", code, body)
	}
}
