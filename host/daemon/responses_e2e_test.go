package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axonhq/axon/host/usage"
)

// The Responses API front door (issue 21) end to end: real plugin
// processes, fake upstreams on 127.0.0.1, and axon restarted on its state
// directory between a response and its continuation.

const responsesKey = "sk-responses-e2e-0123456789abcdef"

// bodies keeps the bodies an upstream was sent, for the upstreams of
// upstream_test.go, which drop them before the step runs.
type bodies struct {
	mu   sync.Mutex
	seen []string
}

// recording is an upstream that records each body, then runs the step
// set last.
func (b *bodies) recording(t *testing.T) (*upstream, func(step)) {
	var mu sync.Mutex
	var cur step
	u := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		s := cur
		mu.Unlock()
		s(w, r)
	})
	inner := u.Server.Config.Handler
	u.Server.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		b.mu.Lock()
		b.seen = append(b.seen, string(raw))
		b.mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(raw)))
		inner.ServeHTTP(w, r)
	})
	return u, func(s step) { mu.Lock(); cur = s; mu.Unlock() }
}

func (b *bodies) last() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.seen) == 0 {
		return ""
	}
	return b.seen[len(b.seen)-1]
}

// openaiCalls streams two parallel tool calls in Chat Completions chunks.
func openaiCalls(model string) step {
	return func(w http.ResponseWriter, _ *http.Request) {
		sse(w,
			fmt.Sprintf(`data: {"id":"c1","model":%q,"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_rome","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Rome\"}"}}]}}]}`+"\n\n", model),
			fmt.Sprintf(`data: {"id":"c1","model":%q,"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_oslo","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}}]}}]}`+"\n\n", model),
			fmt.Sprintf(`data: {"id":"c1","model":%q,"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\n", model),
			fmt.Sprintf(`data: {"id":"c1","model":%q,"choices":[],"usage":{"prompt_tokens":20,"completion_tokens":10,"total_tokens":30,"prompt_tokens_details":{"cached_tokens":8}}}`+"\n\n", model),
			"data: [DONE]\n\n")
	}
}

func responsesHCL(t *testing.T, gpt, claude, down string) string {
	key := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(key, []byte(responsesKey), 0o600); err != nil {
		t.Fatal(err)
	}
	return `
provider "gpt" {
  plugin     = "openai"
  base_url   = "` + gpt + `/v1"
  model      = "gpt-x"
  credential = file("` + key + `")
}
provider "claude" {
  preset     = "anthropic"
  base_url   = "` + claude + `"
  model      = "claude-haiku-4-5"
  tier       = "sub"
  credential = file("` + key + `")
}
provider "down" {
  plugin   = "openai"
  base_url = "` + down + `/v1"
  model    = "m"
}
chain "default" {
  providers = [provider.gpt]
  retry { attempts = 1 }
}
chain "claude" {
  providers = [provider.claude]
  retry { attempts = 1 }
}
chain "down" {
  providers = [provider.down]
  retry { attempts = 1 }
}
`
}

func TestResponsesEndToEnd(t *testing.T) {
	t.Parallel()
	var gptBodies bodies
	gpt, script := gptBodies.recording(t)
	claude := newSchemaUpstream(t, "claude-haiku-4-5", `{"city":"Rome","celsius":21.5}`)
	down := newUpstream(t, status(503, nil, `{"error":{"message":"down","type":"server_error"}}`))
	state := t.TempDir()
	text := responsesHCL(t, gpt.URL, claude.URL, down.URL)
	r := newRigIn(t, state, "", text, frontDoorToken, Options{})

	t.Run("whole text", func(t *testing.T) {
		script(openaiText("gpt-x", "hello", "there"))
		status, h, body := r.do("POST", "/v1/responses", `{"model":"default","instructions":"be brief","input":"Say hello."}`, true)
		var resp struct {
			Object string `json:"object"`
			Status string `json:"status"`
			Model  string `json:"model"`
			Output []struct {
				Type    string `json:"type"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"output"`
			Usage struct {
				InputTokens  int `json:"input_tokens"`
				OutputTokens int `json:"output_tokens"`
			} `json:"usage"`
		}
		if status != 200 || json.Unmarshal([]byte(body), &resp) != nil || resp.Object != "response" || resp.Status != "completed" ||
			len(resp.Output) != 1 || resp.Output[0].Content[0].Text != "hello there" || resp.Model != "gpt-x" || resp.Usage.InputTokens != 7 {
			t.Fatalf("%d %s", status, body)
		}
		if h.Get("x-axon-provider") != "gpt" || h.Get("x-axon-chain") != "default" {
			t.Errorf("headers %v", h)
		}
		if sent := gptBodies.last(); !strings.Contains(sent, `"role":"system","content":"be brief"`) || !strings.Contains(sent, `"content":"Say hello."`) {
			t.Errorf("upstream got %s", sent)
		}
	})

	t.Run("streamed text", func(t *testing.T) {
		script(openaiText("gpt-x", "one", "two"))
		status, _, body := r.do("POST", "/v1/responses", `{"model":"default","input":"Count.","stream":true}`, true)
		if status != 200 {
			t.Fatalf("%d %s", status, body)
		}
		for _, want := range []string{"event: response.created", "event: response.output_text.delta", `"delta":" two"`, "event: response.output_text.done", `"text":"one two"`, "event: response.completed"} {
			if !strings.Contains(body, want) {
				t.Errorf("stream lacks %s:\n%s", want, body)
			}
		}
	})

	var first string
	t.Run("parallel function calls", func(t *testing.T) {
		script(openaiCalls("gpt-x"))
		status, _, body := r.do("POST", "/v1/responses", `{"model":"default","input":"Weather in Rome and Oslo?",
		  "tools":[{"type":"function","name":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]}`, true)
		var resp struct {
			ID     string `json:"id"`
			Output []struct {
				Type   string `json:"type"`
				CallID string `json:"call_id"`
			} `json:"output"`
			Usage struct {
				InputTokens  int `json:"input_tokens"`
				InputDetails struct {
					CachedTokens int `json:"cached_tokens"`
				} `json:"input_tokens_details"`
			} `json:"usage"`
		}
		if status != 200 || json.Unmarshal([]byte(body), &resp) != nil || len(resp.Output) != 2 ||
			resp.Output[0].CallID != "call_rome" || resp.Output[1].CallID != "call_oslo" || resp.Usage.InputDetails.CachedTokens != 8 || resp.Usage.InputTokens != 20 {
			t.Fatalf("%d %s", status, body)
		}
		first = resp.ID
	})
	if first == "" {
		t.FailNow()
	}

	// axon restarts on the same state directory: the stored response
	// outlives it.
	r.front.Close()
	r = newRigIn(t, state, "", text, frontDoorToken, Options{})

	t.Run("outputs in a follow-up with previous_response_id, after a restart", func(t *testing.T) {
		script(openaiText("gpt-x", "Rome", "is", "warmer"))
		status, _, body := r.do("POST", "/v1/responses", `{"model":"default","previous_response_id":"`+first+`","input":[
		  {"type":"function_call_output","call_id":"call_rome","output":"21C"},
		  {"type":"function_call_output","call_id":"call_oslo","output":"-3C"}],
		  "tools":[{"type":"function","name":"weather","parameters":{"type":"object"}}]}`, true)
		if status != 200 || !strings.Contains(body, "Rome is warmer") || !strings.Contains(body, `"previous_response_id":"`+first+`"`) {
			t.Fatalf("%d %s", status, body)
		}
		var sent struct {
			Messages []struct {
				Role       string `json:"role"`
				Content    any    `json:"content"`
				ToolCallID string `json:"tool_call_id"`
				ToolCalls  []struct {
					ID string `json:"id"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		if err := json.Unmarshal([]byte(gptBodies.last()), &sent); err != nil {
			t.Fatal(err)
		}
		var roles []string
		for _, m := range sent.Messages {
			roles = append(roles, m.Role+":"+m.ToolCallID)
		}
		if got := strings.Join(roles, " "); got != "user: assistant: tool:call_rome tool:call_oslo" || len(sent.Messages[1].ToolCalls) != 2 {
			t.Errorf("the upstream got the conversation %s (%s)", got, gptBodies.last())
		}
		if status, _, got := r.do("GET", "/v1/responses/"+first, "", true); status != 200 || !strings.Contains(got, "call_oslo") {
			t.Errorf("GET after restart: %d %s", status, got)
		}
	})

	t.Run("structured output through an Anthropic-format provider", func(t *testing.T) {
		status, _, body := r.do("POST", "/v1/responses", `{"model":"claude","input":"Weather in Rome as JSON.",
		  "text":{"format":{"type":"json_schema","name":"weather","strict":true,"schema":`+weatherSchema+`}}}`, true)
		var resp struct {
			Output []struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"output"`
			Text struct {
				Format struct {
					Type string `json:"type"`
				} `json:"format"`
			} `json:"text"`
		}
		if status != 200 || json.Unmarshal([]byte(body), &resp) != nil || len(resp.Output) != 1 || resp.Text.Format.Type != "json_schema" {
			t.Fatalf("%d %s", status, body)
		}
		var answer struct {
			City    string  `json:"city"`
			Celsius float64 `json:"celsius"`
		}
		if err := json.Unmarshal([]byte(resp.Output[0].Content[0].Text), &answer); err != nil || answer.City != "Rome" {
			t.Errorf("answer %q: %v", resp.Output[0].Content[0].Text, err)
		}
		if calls, bad := claude.seen(); calls != 1 || len(bad) > 0 {
			t.Errorf("the Anthropic upstream was called %d times, refusing %v", calls, bad)
		}
	})

	t.Run("an exhausted chain", func(t *testing.T) {
		status, h, body := r.do("POST", "/v1/responses", `{"model":"down","input":"hi"}`, true)
		if status != 503 || !strings.Contains(body, `"type":"server_error"`) || h.Get("x-axon-trail") == "" {
			t.Errorf("%d %v %s", status, h, body)
		}
		status, _, body = r.do("POST", "/v1/responses", `{"model":"down","input":"hi","stream":true}`, true)
		if status != 503 {
			t.Errorf("streamed, before the first byte: %d %s", status, body)
		}
	})

	t.Run("a cut stream", func(t *testing.T) {
		script(openaiCut("gpt-x", "half", "an"))
		status, _, body := r.do("POST", "/v1/responses", `{"model":"default","input":"go","stream":true}`, true)
		if status != 200 || !strings.Contains(body, "event: error") || !strings.Contains(body, "event: response.failed") || strings.Contains(body, "response.completed") {
			t.Errorf("%d %s", status, body)
		}
	})

	t.Run("errors in the API's own shape", func(t *testing.T) {
		status, _, body := r.do("POST", "/v1/responses", `{"model":"default","input":"x","tools":[{"type":"web_search"}]}`, true)
		if status != 400 || !strings.Contains(body, `"param":"tools[0].type"`) || !strings.Contains(body, "web_search") {
			t.Errorf("%d %s", status, body)
		}
		status, _, body = r.do("POST", "/v1/responses", `{"model":"default","input":"x","previous_response_id":"resp_nope"}`, true)
		if status != 400 || !strings.Contains(body, "previous_response_not_found") {
			t.Errorf("%d %s", status, body)
		}
	})

	// Each turn is a usage fact of its own source, and counted in the
	// metrics under its route, as the other front doors' turns are.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.broker.usage.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	facts, err := r.front.store.Facts(ctx, usage.Query{Since: time.Now().Add(-time.Hour), Until: time.Now().Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	var fromResponses int
	for _, f := range facts {
		if f.Source == usage.SourceResponses && f.Provider == "gpt" {
			fromResponses++
		}
	}
	if fromResponses < 2 { // this rig served the follow-up and the cut stream through gpt
		t.Errorf("usage facts from /v1/responses: %d of %d", fromResponses, len(facts))
	}
	if _, _, m := r.do("GET", "/metrics", "", true); !strings.Contains(m, `/v1/responses`) {
		t.Errorf("/metrics does not count /v1/responses")
	}

	// The stored responses hold what clients sent and models answered:
	// never the provider's key.
	r.front.Close()
	if !fileHas(t, state, "call_oslo") {
		t.Fatal("the response store holds no response: the key check below would prove nothing")
	}
	if fileHas(t, state, responsesKey) {
		t.Error("the provider key is in the state directory")
	}
}

// fileHas reports whether any file under dir holds s.
func fileHas(t *testing.T, dir, s string) bool {
	t.Helper()
	found := false
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), s) {
			found = true
		}
		return nil
	})
	return found
}
