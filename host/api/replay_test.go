package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

// The replay tests take streams recorded from real providers, read them as
// a client would, turn the answer into the canonical events a provider
// plugin reports, serve those through the front door in both wire formats,
// streamed and whole, and check that each client reads the same answer the
// provider gave.

// recordedStreams are the recorded answers replayed, by wire format.
var recordedStreams = []struct {
	file      string
	anthropic bool
}{
	{"openai/chat-text-stream-include-usage.sse", false},
	{"openai/chat-stream-length-include-usage.sse", false},
	{"openai/chat-tool-call-stream.sse", false},
	{"openai/chat-parallel-tool-calls-stream.sse", false},
	{"openai/chat-parallel-tool-calls-stream-2.sse", false},
	{"deepseek/chat-reasoning-stream.sse", false},
	{"anthropic/messages-text-stream.sse", true},
	{"anthropic/messages-tool-use-stream.sse", true},
	{"anthropic/messages-tool-use-no-args-stream.sse", true},
	{"anthropic/messages-parallel-tool-use-stream.sse", true},
	{"anthropic/messages-thinking-tool-use-stream.sse", true},
	{"anthropic/messages-redacted-thinking-stream.sse", true},
}

// answerView is what both formats can say about an answer.
type answerView struct {
	Model     string
	Reasoning string
	Text      string
	Calls     []accCall // Index is the position among the calls
	Finish    sdk.FinishReason
	Usage     *usageView // nil: not compared
}

type usageView struct{ In, Out, CacheRead *int64 }

func (r openaiResult) view() answerView {
	v := answerView{Model: r.Model, Reasoning: r.Reasoning, Text: r.Content, Finish: sdk.FinishReason(r.Finish)}
	for i, c := range r.ToolCalls {
		v.Calls = append(v.Calls, accCall{Index: i, ID: c.ID, Name: c.Name, Arguments: compact(c.Arguments)})
	}
	if r.Usage != nil {
		v.Usage = &usageView{In: count(r.Usage, "prompt_tokens"), Out: count(r.Usage, "completion_tokens")}
		if d, ok := r.Usage["prompt_tokens_details"].(map[string]any); ok {
			v.Usage.CacheRead = count(d, "cached_tokens")
		}
	}
	return v
}

func (r anthropicResult) view() answerView {
	v := answerView{Model: r.Model}
	for _, b := range r.Content {
		switch b.Type {
		case "thinking":
			v.Reasoning += b.Thinking
		case "text":
			v.Text += b.Text
		case "tool_use":
			v.Calls = append(v.Calls, accCall{Index: len(v.Calls), ID: b.ID, Name: b.Name, Arguments: compact(b.Input)})
		}
	}
	evs := r.events()
	v.Finish = evs[len(evs)-1].Finish
	v.Usage = &usageView{In: count(r.Usage, "input_tokens"), Out: count(r.Usage, "output_tokens"), CacheRead: count(r.Usage, "cache_read_input_tokens")}
	return v
}

// compact strips the insignificant whitespace of a JSON text: a whole
// response re-encodes tool input, a stream passes it as streamed.
func compact(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil {
		return s
	}
	return b.String()
}

// compactInputs is blocks with their tool inputs compacted.
func compactInputs(blocks []accBlock) []accBlock {
	out := append([]accBlock(nil), blocks...)
	for i := range out {
		out[i].Input = compact(out[i].Input)
	}
	return out
}

func TestReplayRecordedAnswers(t *testing.T) {
	t.Parallel()
	for _, rs := range recordedStreams {
		raw, err := os.ReadFile(filepath.Join(sharedFixtures, rs.file))
		if err != nil {
			t.Fatalf("recorded stream missing (the fixtures are committed under plugins/testdata/wire): %v", err)
		}
		t.Run(rs.file, func(t *testing.T) {
			t.Parallel()
			var (
				events []sdk.Event
				want   answerView
				rec    anthropicResult // the recording, when it is Anthropic's
			)
			if rs.anthropic {
				rec = readAnthropicStream(t, parseSSE(t, string(raw)))
				events, want = rec.events(), rec.view()
			} else {
				r := readOpenAIStream(t, parseSSE(t, string(raw)))
				events, want = r.events(), r.view()
			}
			srv := newServer(t, &fakeBackend{events: events})

			for _, stream := range []bool{true, false} {
				o := askOpenAI(t, srv, stream)
				if got := o.view(); !sameAnswer(t, "OpenAI client", stream, want, got) {
					continue
				}
				a := askAnthropic(t, srv, stream)
				if !rs.anthropic && want.Usage == nil {
					want.Usage = nil // the Anthropic format always has counts; the recording had none to compare
				}
				got := a.view()
				if want.Usage == nil {
					got.Usage = nil
				}
				sameAnswer(t, "Anthropic client", stream, want, got)
				if rs.anthropic {
					// Same format: every block comes back as recorded,
					// signatures and redacted data included.
					if diff := cmp.Diff(compactInputs(rec.Content), compactInputs(a.Content)); diff != "" {
						t.Errorf("Anthropic client, stream=%v: blocks differ from the recording (-recorded +axon):\n%s", stream, diff)
					}
				}
			}
		})
	}
}

func sameAnswer(t *testing.T, client string, stream bool, want, got answerView) bool {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s, stream=%v: answer differs from the recording (-recorded +axon):\n%s", client, stream, diff)
		return false
	}
	return true
}

// askOpenAI sends a Chat Completions request and reads the answer as a
// client would.
func askOpenAI(t *testing.T, srv *httptest.Server, stream bool) openaiResult {
	t.Helper()
	body := `{"model":"default","messages":[{"role":"user","content":"hi"}]}`
	if stream {
		body = `{"model":"default","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`
	}
	resp := post(t, srv, "/v1/chat/completions", body)
	got := readAll(t, resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, got)
	}
	if !stream {
		return readOpenAIWhole(t, got)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q", ct)
	}
	r := readOpenAIStream(t, parseSSE(t, got))
	if !r.Done || r.Role != "assistant" {
		t.Fatalf("stream without [DONE] or without the assistant role:\n%s", got)
	}
	return r
}

// readOpenAIWhole reads a chat.completion object.
func readOpenAIWhole(t *testing.T, body string) openaiResult {
	t.Helper()
	var c struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Role             string  `json:"role"`
				Content          *string `json:"content"`
				ReasoningContent string  `json:"reasoning_content"`
				ToolCalls        []struct {
					ID       string `json:"id"`
					Type     string `json:"type"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage map[string]any `json:"usage"`
	}
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, body)
	}
	if c.Object != "chat.completion" || len(c.Choices) != 1 || c.ID == "" {
		t.Fatalf("not a chat.completion with one choice:\n%s", body)
	}
	m := c.Choices[0].Message
	r := openaiResult{ID: c.ID, Model: c.Model, Role: m.Role, Reasoning: m.ReasoningContent, Finish: c.Choices[0].FinishReason, Usage: c.Usage}
	if m.Content != nil {
		r.Content = *m.Content
	}
	for i, tc := range m.ToolCalls {
		if tc.Type != "function" || tc.ID == "" {
			t.Fatalf("tool call %d without type function or id:\n%s", i, body)
		}
		r.ToolCalls = append(r.ToolCalls, accCall{Index: i, ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return r
}

// askAnthropic sends a Messages request and reads the answer as a client
// would.
func askAnthropic(t *testing.T, srv *httptest.Server, stream bool) anthropicResult {
	t.Helper()
	body := `{"model":"default","max_tokens":1024,"messages":[{"role":"user","content":"hi"}],"stream":` + strconv.FormatBool(stream) + `}`
	resp := post(t, srv, "/v1/messages", body, "anthropic-version", "2023-06-01")
	got := readAll(t, resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, got)
	}
	if !stream {
		return readAnthropicWhole(t, got)
	}
	r := readAnthropicStream(t, parseSSE(t, got))
	if !r.Stopped {
		t.Fatalf("stream without message_stop:\n%s", got)
	}
	return r
}

// readAnthropicWhole reads a message object.
func readAnthropicWhole(t *testing.T, body string) anthropicResult {
	t.Helper()
	var m struct {
		ID         string         `json:"id"`
		Type       string         `json:"type"`
		Role       string         `json:"role"`
		Model      string         `json:"model"`
		StopReason string         `json:"stop_reason"`
		Usage      map[string]any `json:"usage"`
		Content    []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			Thinking  string          `json:"thinking"`
			Signature *string         `json:"signature"`
			Data      string          `json:"data"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, body)
	}
	if m.Type != "message" || m.Role != "assistant" || m.ID == "" {
		t.Fatalf("not an assistant message:\n%s", body)
	}
	if _, ok := m.Usage["output_tokens"]; !ok {
		t.Fatalf("usage without output_tokens:\n%s", body)
	}
	r := anthropicResult{ID: m.ID, Model: m.Model, StopReason: m.StopReason, Usage: m.Usage, Stopped: true}
	for _, b := range m.Content {
		if b.Type == "thinking" && b.Signature == nil {
			t.Fatalf("thinking block without a signature field:\n%s", body)
		}
		ab := accBlock{Type: b.Type, Text: b.Text, Thinking: b.Thinking, Data: b.Data, ID: b.ID, Name: b.Name, Input: string(b.Input)}
		if b.Signature != nil {
			ab.Signature = *b.Signature
		}
		r.Content = append(r.Content, ab)
	}
	return r
}
