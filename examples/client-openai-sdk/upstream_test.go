package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// upstream stands in for a model provider: each request gets the next reply
// of its script (the last one repeats), and every request is recorded with
// the body the provider plugin sent.
type upstream struct {
	*httptest.Server
	mu       sync.Mutex
	script   []reply
	requests []request
}

// reply writes one scripted answer.
type reply func(w http.ResponseWriter)

// request is what the upstream received.
type request struct {
	Path   string
	Header http.Header
	Body   []byte
}

// newUpstream serves script until the test ends. Register it before axon,
// so that axon is stopped first.
func newUpstream(t *testing.T, script ...reply) *upstream {
	t.Helper()
	u := &upstream{script: script}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		u.mu.Lock()
		next := u.script[min(len(u.requests), len(u.script)-1)]
		u.requests = append(u.requests, request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		u.mu.Unlock()
		next(w)
	}))
	t.Cleanup(u.Close)
	return u
}

// received returns the requests so far.
func (u *upstream) received() []request {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]request(nil), u.requests...)
}

// only returns the one request the upstream received, and fails the test
// if there were more or none.
func (u *upstream) only(t *testing.T) request {
	t.Helper()
	reqs := u.received()
	if len(reqs) != 1 {
		t.Fatalf("upstream got %d requests, want 1", len(reqs))
	}
	return reqs[0]
}

// decode unmarshals a request body the provider plugin sent.
func (r request) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("upstream request body is not the JSON expected: %v\n%s", err, r.Body)
	}
}

// recorded replays a response body recorded from the real provider API
// (the in-repo copy of the shared wire fixtures), as it was sent.
func recorded(t *testing.T, provider, name, contentType string) reply {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(axonRoot, "plugins", "testdata", "wire", provider, name))
	if err != nil {
		t.Fatal(err)
	}
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(http.StatusOK)
		w.Write(body)
	}
}

// jsonError answers with status and a JSON body.
func jsonError(status int, body string) reply {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// openaiStream sends chat.completion.chunk objects as Server-Sent Events,
// flushing each, then "data: [DONE]" unless cut is set.
func openaiStream(cut bool, chunks ...string) reply {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, c := range chunks {
			fmt.Fprintf(w, "data: %s\n\n", c)
			w.(http.Flusher).Flush()
		}
		if !cut {
			io.WriteString(w, "data: [DONE]\n\n")
		}
	}
}

func openaiChunk(model, choice string) string {
	return fmt.Sprintf(`{"id":"chatcmpl-up","object":"chat.completion.chunk","created":1,"model":%q,"choices":[%s]}`, model, choice)
}

func openaiDelta(model, delta string) string {
	return openaiChunk(model, `{"index":0,"delta":`+delta+`,"finish_reason":null}`)
}

// openaiText streams words as content deltas, a stop, and usage.
func openaiText(model string, prompt int, words ...string) reply {
	chunks := []string{openaiDelta(model, `{"role":"assistant","content":""}`)}
	for _, w := range words {
		chunks = append(chunks, openaiDelta(model, fmt.Sprintf(`{"content":%q}`, w)))
	}
	chunks = append(chunks,
		openaiChunk(model, `{"index":0,"delta":{},"finish_reason":"stop"}`),
		fmt.Sprintf(`{"id":"chatcmpl-up","object":"chat.completion.chunk","created":1,"model":%q,"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
			model, prompt, len(words), prompt+len(words)))
	return openaiStream(false, chunks...)
}

// event is one Anthropic Messages stream event: its name and data.
type event struct{ name, data string }

// anthropicStream sends Messages stream events, flushing each.
func anthropicStream(events ...event) reply {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, e := range events {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, e.data)
			w.(http.Flusher).Flush()
		}
	}
}

// anthropicText streams a Messages answer of words, with the usage the
// start event reports (usage is the JSON of its fields, without braces).
func anthropicText(model, usage string, words ...string) reply {
	events := []event{
		{"message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_up","type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{%s}}}`, model, usage)},
		{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		{"ping", `{"type":"ping"}`},
	}
	for _, w := range words {
		events = append(events, event{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, w)})
	}
	events = append(events,
		event{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		event{"message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":%d}}`, len(words))},
		event{"message_stop", `{"type":"message_stop"}`})
	return anthropicStream(events...)
}

// ollamaText streams an /api/chat answer of words as NDJSON, the way
// Ollama sends it: one line per token, then the done line with the counts.
func ollamaText(model string, prompt int, words ...string) reply {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
		for _, word := range words {
			fmt.Fprintf(w, `{"model":%q,"created_at":"2026-12-03T08:00:00Z","message":{"role":"assistant","content":%q},"done":false}`+"\n", model, word)
			w.(http.Flusher).Flush()
		}
		fmt.Fprintf(w, `{"model":%q,"created_at":"2026-12-03T08:00:01Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"prompt_eval_count":%d,"eval_count":%d}`+"\n",
			model, prompt, len(words))
	}
}

// Provider blocks for axon.hcl. The OpenAI- and Anthropic-format ones carry
// the credential, which axon injects on the way to the upstream; a local
// Ollama takes none.

func openaiProvider(name string, u *upstream) string {
	return fmt.Sprintf(`provider %q {
  plugin     = "openai"
  base_url   = "%s/v1"
  model      = "gpt-test"
  credential = env(%q)
}
`, name, u.URL, upstreamKeyEnv)
}

func anthropicProvider(name string, u *upstream) string {
	return fmt.Sprintf(`provider %q {
  plugin     = "anthropic"
  base_url   = %q
  model      = "claude-test"
  credential = env(%q)
  auth {
    scheme = "header"
    name   = "x-api-key"
  }
}
`, name, u.URL, upstreamKeyEnv)
}

func ollamaProvider(name string, u *upstream) string {
	return fmt.Sprintf(`provider %q {
  plugin   = "ollama"
  base_url = %q
  model    = "qwen-test"
}
`, name, u.URL)
}

// defaultChain is chain "default" over the named providers, in order.
func defaultChain(providers ...string) string {
	refs := make([]string, len(providers))
	for i, p := range providers {
		refs[i] = "provider." + p
	}
	return fmt.Sprintf("chain \"default\" {\n  providers = [%s]\n}\n", strings.Join(refs, ", "))
}

// oneProvider starts axon with a chain of one provider named name, of the
// given block kind, in front of u.
func oneProvider(t *testing.T, kind func(string, *upstream) string, name string, u *upstream) *axon {
	t.Helper()
	return startAxon(t, kind(name, u)+defaultChain(name))
}
