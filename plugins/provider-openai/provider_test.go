package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// textStream is a minimal successful streamed reply.
const textStream = `data: {"id":"c1","object":"chat.completion.chunk","model":"m-1","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"m-1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

data: {"id":"c1","object":"chat.completion.chunk","model":"m-1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}

data: [DONE]

`

func serveText(t *testing.T, check func(r *http.Request, body []byte)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("read request body: %v", err)
		}
		if check != nil {
			check(r, body)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, textStream)
	})
}

// TestOutgoingRequest checks what reaches the egress for each served
// vendor's base_url: POST to {base_url}/chat/completions, the body as
// translated, the configured extra headers, and no credential header — the
// host injects that.
func TestOutgoingRequest(t *testing.T) {
	t.Parallel()
	cases := []struct {
		vendor, baseURL, wantPath string
	}{
		{"openai", "https://api.openai.com/v1", "/v1/chat/completions"},
		{"ollama", "http://127.0.0.1:11434/v1", "/v1/chat/completions"},
		{"openrouter", "https://openrouter.ai/api/v1/", "/api/v1/chat/completions"},
		{"gemini", "https://generativelanguage.googleapis.com/v1beta/openai", "/v1beta/openai/chat/completions"},
		{"zai", "https://api.z.ai/api/paas/v4", "/api/paas/v4/chat/completions"},
		{"github", "https://models.github.ai/inference", "/inference/chat/completions"},
		{"deepseek", "https://api.deepseek.com", "/chat/completions"},
	}
	for _, c := range cases {
		t.Run(c.vendor, func(t *testing.T) {
			t.Parallel()
			var gotPath string
			values := fmt.Sprintf(`{"base_url":%q,"model":"m","headers":{"X-Title":"axon","HTTP-Referer":"https://example.com"}}`, c.baseURL)
			p, fe := configure(t, serveText(t, func(r *http.Request, _ []byte) { gotPath = r.URL.Path }), values)
			req := userRequest("hi")
			if _, err := generate(t, p, req); err != nil {
				t.Fatal(err)
			}
			recs := fe.Requests()
			if len(recs) != 1 {
				t.Fatalf("%d requests, want 1", len(recs))
			}
			rec := recs[0]
			if want := strings.TrimRight(c.baseURL, "/") + "/chat/completions"; rec.Method != http.MethodPost || rec.URL != want {
				t.Errorf("%s %s, want POST %s", rec.Method, rec.URL, want)
			}
			if gotPath != c.wantPath {
				t.Errorf("upstream saw path %q, want %q", gotPath, c.wantPath)
			}
			for _, h := range []string{"Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key"} {
				if v := rec.Header.Get(h); v != "" {
					t.Errorf("plugin set credential header %s: %q", h, v)
				}
			}
			for h, want := range map[string]string{"Content-Type": "application/json", "X-Title": "axon", "Http-Referer": "https://example.com"} {
				if got := rec.Header.Get(h); got != want {
					t.Errorf("header %s = %q, want %q", h, got, want)
				}
			}
			wire, err := buildRequest(p.cfg, req)
			if err != nil {
				t.Fatal(err)
			}
			want, err := sdk.EncodeJSON(wire)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(rec.Body)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOllamaWithoutKey: a local Ollama needs no credential. The host
// injects nothing and the plugin must not need anything injected.
func TestOllamaWithoutKey(t *testing.T) {
	t.Parallel()
	p, _ := configure(t, serveText(t, func(r *http.Request, _ []byte) {
		if v := r.Header.Get("Authorization"); v != "" {
			t.Errorf("Authorization reached Ollama: %q", v)
		}
	}), `{"base_url":"http://127.0.0.1:11434/v1","model":"qwen2.5:3b"}`)
	events, err := generate(t, p, userRequest("hi"))
	if err != nil {
		t.Fatal(err)
	}
	sdktest.CheckEvents(t, events)
}

func TestInfo(t *testing.T) {
	t.Parallel()
	info := (&openai{}).Info()
	if info.Name != "openai" || info.Kind != sdk.KindProvider || info.Auth != (sdk.Auth{Scheme: sdk.AuthBearer}) {
		t.Errorf("info %+v", info)
	}
	var names []string
	for _, a := range info.Config.Attributes {
		names = append(names, a.Name)
		if a.Description == "" {
			t.Errorf("attribute %s has no description", a.Name)
		}
	}
	want := []string{"base_url", "model", "max_tokens", "max_tokens_field", "headers", "reasoning_effort", "reasoning_field", "include_usage", "api", "strict_stream"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("attributes (-want +got):\n%s", diff)
	}
	// The schema's defaults, applied the way the host applies them, must
	// give the same configuration as the plugin's own defaults.
	full, err := sdktest.ApplyDefaults(info.Config, nil)
	if err != nil {
		t.Fatal(err)
	}
	fromSchema, err := parseConfig(sdk.Config{Values: full})
	if err != nil {
		t.Fatal(err)
	}
	builtIn, err := parseConfig(sdk.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(builtIn, fromSchema, cmp.AllowUnexported(config{})); diff != "" {
		t.Errorf("schema defaults differ from built-in defaults (-built-in +schema):\n%s", diff)
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	p, _ := configure(t, http.NotFoundHandler(), `{"model":"llama3.2"}`)
	got, err := p.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]sdk.Model{{ID: "llama3.2"}}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestConfigureRejectsBadConfig(t *testing.T) {
	t.Parallel()
	err := (&openai{}).Configure(context.Background(), sdk.Config{Values: json.RawMessage(`{"headers":{"Authorization":"Bearer x"}}`)})
	if sdk.ClassOf(err) != sdk.ClassPermanent {
		t.Fatalf("got %v, want a permanent error", err)
	}
}

func TestGenerateWithoutEgress(t *testing.T) {
	t.Parallel()
	p := &openai{}
	if err := p.Configure(context.Background(), sdk.Config{Values: json.RawMessage(`{"model":"m"}`)}); err != nil {
		t.Fatal(err)
	}
	_, err := generate(t, p, userRequest("hi"))
	if sdk.ClassOf(err) != sdk.ClassPermanent {
		t.Fatalf("got %v, want a permanent error", err)
	}
}

// TestEgressErrors: the host's verdict on an egress request (denied, over a
// limit, timed out) reaches the caller with its class and code intact; any
// other transport failure is transient.
func TestEgressErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		err  error
		want errorSummary
	}{
		{"denied", sdk.ErrEgressDenied, errorSummary{Class: sdk.ClassPermanent, Code: "egress_denied"}},
		{"timeout", &sdk.Error{Class: sdk.ClassTransient, Code: "timeout", Message: "connect timeout"}, errorSummary{Class: sdk.ClassTransient, Code: "timeout"}},
		{"connection refused", errors.New("dial tcp 127.0.0.1:11434: connect: connection refused"), errorSummary{Class: sdk.ClassTransient}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := &openai{}
			eg := sdktest.EgressFunc(func(context.Context, *sdk.EgressRequest) (*sdk.EgressResponse, error) { return nil, c.err })
			if err := p.Configure(context.Background(), sdk.Config{Values: json.RawMessage(`{"model":"m"}`), Egress: eg}); err != nil {
				t.Fatal(err)
			}
			_, err := generate(t, p, userRequest("hi"))
			if diff := cmp.Diff(c.want, summarize(err)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if strings.Contains(err.Error(), "chat/completions") {
				t.Errorf("error %q repeats the URL", err)
			}
		})
	}
}

// TestStreamsTokenByToken: the first text delta reaches the sink while the
// upstream is still holding the rest of the reply, so nothing buffers the
// stream. A cancelled caller then ends Generate with its context error.
func TestStreamsTokenByToken(t *testing.T) {
	t.Parallel()
	firstSeen := make(chan struct{})
	p, _ := configure(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"Hel"}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-firstSeen:
		case <-r.Context().Done():
			return
		case <-time.After(30 * time.Second): // only a failure bound: the test fails below
		}
		io.WriteString(w, `data: {"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}), `{"model":"m"}`)

	var order []string
	err := p.Generate(context.Background(), userRequest("hi"), sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error {
		if ev.Type == sdk.EventTextDelta {
			order = append(order, ev.Text)
			if ev.Text == "Hel" {
				select {
				case <-firstSeen:
				default:
					close(firstSeen)
				}
			}
		}
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-firstSeen:
	default:
		t.Fatal("the first delta never reached the sink")
	}
	if diff := cmp.Diff([]string{"Hel", "lo"}, order); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestProviderConformance(t *testing.T) {
	t.Run("text", func(t *testing.T) {
		sdktest.ProviderConformance(t, sdktest.ProviderSuite{
			New:      func() sdk.Provider { return &openai{} },
			Config:   json.RawMessage(`{"base_url":"http://127.0.0.1:11434/v1","model":"qwen2.5:3b"}`),
			Upstream: serveText(t, nil),
		})
	})
	t.Run("parallel tool calls", func(t *testing.T) {
		body := readFixture(t, "openai/chat-parallel-tool-calls-stream.sse")
		sdktest.ProviderConformance(t, sdktest.ProviderSuite{
			New:    func() sdk.Provider { return &openai{} },
			Config: json.RawMessage(`{"model":"gpt-4o"}`),
			Upstream: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write(body)
			}),
			Request: &sdk.Request{
				Messages: []sdk.Message{user(text("Add and multiply 2 and 3."))},
				Tools: []sdk.ToolSpec{
					{Name: "add", InputSchema: json.RawMessage(`{"type":"object"}`)},
					{Name: "multiply", InputSchema: json.RawMessage(`{"type":"object"}`)},
				},
			},
		})
	})
}
