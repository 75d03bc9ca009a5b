package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

// memResponses is a ResponseStore in memory.
type memResponses struct {
	mu sync.Mutex
	m  map[string]StoredResponse
}

func newMemResponses() *memResponses { return &memResponses{m: map[string]StoredResponse{}} }

func (s *memResponses) Get(_ context.Context, id string) (StoredResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.m[id]
	if !ok {
		return StoredResponse{}, ErrResponseNotFound
	}
	return r, nil
}

func (s *memResponses) Put(_ context.Context, r StoredResponse) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[r.ID] = r
	return nil
}

func (s *memResponses) Delete(_ context.Context, id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[id]
	delete(s.m, id)
	return ok, nil
}

func TestResponsesDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want *sdk.Request
	}{{
		name: "a string input is one user message; instructions are the system prompt",
		body: `{"model":"default","instructions":"be brief","input":"hi"}`,
		want: &sdk.Request{System: []sdk.Text{{Text: "be brief"}}, Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "hi"}}}}},
	}, {
		name: "items: developer message, user parts, calls and their outputs, knobs",
		body: `{"model":"default","max_output_tokens":64,"temperature":0.2,"top_p":0.9,"parallel_tool_calls":false,
			"tool_choice":{"type":"function","name":"weather"},"reasoning":{"effort":"low"},
			"tools":[{"type":"function","name":"weather","description":"d","parameters":{"type":"object"}}],
			"text":{"format":{"type":"json_schema","name":"w","schema":{"type":"object"},"strict":true}},
			"input":[
			{"role":"developer","content":"use metric"},
			{"type":"message","role":"user","content":[{"type":"input_text","text":"weather?"},{"type":"input_image","image_url":"https://example.com/a.png"},{"type":"input_file","file_url":"https://example.com/a.pdf"}]},
			{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"think"}]},
			{"type":"message","role":"assistant","content":[{"type":"output_text","text":"checking"}]},
			{"type":"function_call","call_id":"c1","name":"weather","arguments":"{\"city\":\"Rome\"}"},
			{"type":"function_call","call_id":"c2","name":"weather","arguments":"{\"city\":\"Oslo\"}"},
			{"type":"function_call_output","call_id":"c1","output":"21C"},
			{"type":"function_call_output","call_id":"c2","output":[{"type":"input_text","text":"-3C"}]}]}`,
		want: &sdk.Request{
			System:      []sdk.Text{{Text: "use metric"}},
			MaxTokens:   64,
			Temperature: ptr(0.2),
			Messages: []sdk.Message{
				{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "weather?"}, sdk.Image{URL: "https://example.com/a.png"}, sdk.Document{MediaType: "application/pdf", URL: "https://example.com/a.pdf"}}},
				{Role: sdk.RoleAssistant, Parts: []sdk.Part{sdk.Reasoning{Text: "think"}, sdk.Text{Text: "checking"},
					sdk.ToolCall{ID: "c1", Name: "weather", Input: json.RawMessage(`{"city":"Rome"}`)},
					sdk.ToolCall{ID: "c2", Name: "weather", Input: json.RawMessage(`{"city":"Oslo"}`)}}},
				{Role: sdk.RoleTool, Parts: []sdk.Part{
					sdk.ToolResult{CallID: "c1", Name: "weather", Content: []sdk.Part{sdk.Text{Text: "21C"}}},
					sdk.ToolResult{CallID: "c2", Name: "weather", Content: []sdk.Part{sdk.Text{Text: "-3C"}}}}},
			},
			Tools:      []sdk.ToolSpec{{Name: "weather", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}},
			ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "weather", Sequential: true},
			Output:     &sdk.Output{Kind: sdk.OutputJSONSchema, Name: "w", Schema: json.RawMessage(`{"type":"object"}`), Strict: true},
			Options:    map[string]json.RawMessage{"top_p": json.RawMessage(`0.9`), "reasoning_effort": json.RawMessage(`"low"`)},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := decodeResponses([]byte(tc.body), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, c.req); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResponsesDecodeRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, body, param string }{
		{"no input", `{"model":"m"}`, "input"},
		{"built-in tool", `{"model":"m","input":"x","tools":[{"type":"web_search"}]}`, "tools[0].type"},
		{"output of an unknown call", `{"model":"m","input":[{"type":"function_call_output","call_id":"nope","output":"x"}]}`, "input[0].call_id"},
		{"item reference", `{"model":"m","input":[{"type":"item_reference","id":"msg_1"}]}`, "input[0].type"},
		{"background", `{"model":"m","input":"x","background":true}`, "background"},
		{"conversation", `{"model":"m","input":"x","conversation":"conv_1"}`, "conversation"},
		{"prompt template", `{"model":"m","input":"x","prompt":{"id":"pmpt_1"}}`, "prompt"},
		{"top_logprobs", `{"model":"m","input":"x","top_logprobs":2}`, "top_logprobs"},
		{"bad max_output_tokens", `{"model":"m","input":"x","max_output_tokens":0}`, "max_output_tokens"},
		{"file id", `{"model":"m","input":[{"role":"user","content":[{"type":"input_file","file_id":"f"}]}]}`, "input[0].content[0].file_id"},
	} {
		_, err := decodeResponses([]byte(tc.body), nil)
		we := asWireError(err)
		if err == nil || we.kind != kindInvalid || we.param != tc.param {
			t.Errorf("%s: %v (param %q), want a 400 naming %s", tc.name, err, we.param, tc.param)
		}
	}
}

// A stream of reasoning, text and two parallel tool calls renders as the
// typed event sequence, each with its sequence number; the final response
// holds every item.
func TestResponsesStream(t *testing.T) {
	t.Parallel()
	b := &fakeBackend{events: []sdk.Event{
		start("gpt-x"), think("plan "), think("it"), signed("sig"), text("Hel"), text("lo"),
		toolCall(0, "call_1", "weather", `{"city":"Rome"}`), toolCall(1, "call_2", "weather", `{"city":"Oslo"}`),
		{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(10), CacheReadTokens: sdk.Tokens(5), OutputTokens: sdk.Tokens(7)}},
		finish(sdk.FinishToolCalls),
	}}
	srv := newServer(t, b, WithResponses(newMemResponses()))
	resp := post(t, srv, "/v1/responses", `{"model":"default","input":"hi","stream":true,"tools":[{"type":"function","name":"weather","parameters":{"type":"object"}}]}`)
	body := readAll(t, resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	var names []string
	for i, ev := range parseSSE(t, body) {
		var d struct {
			Type string `json:"type"`
			Seq  int    `json:"sequence_number"`
		}
		if err := json.Unmarshal([]byte(ev.Data), &d); err != nil || d.Type != ev.Event || d.Seq != i {
			t.Errorf("event %d %q: type %q, sequence %d (%v)", i, ev.Event, d.Type, d.Seq, err)
		}
		names = append(names, ev.Event)
	}
	want := []string{"response.created", "response.in_progress",
		"response.output_item.added", "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
		"response.output_item.added", "response.content_part.added", "response.output_text.delta", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done", "response.output_item.done",
		"response.completed"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	golden(t, "responses-stream-reasoning-text-parallel-tools.sse", body)
}

// A whole response is stored; previous_response_id continues it with the
// function outputs, GET returns it, DELETE removes it.
func TestResponsesStoredConversation(t *testing.T) {
	t.Parallel()
	store := newMemResponses()
	b := &fakeBackend{events: []sdk.Event{start("gpt-x"), toolCall(0, "call_1", "weather", `{"city":"Rome"}`), usage(3, 2), finish(sdk.FinishToolCalls)}}
	srv := newServer(t, b, WithResponses(store))
	resp := post(t, srv, "/v1/responses", `{"model":"default","input":"weather in Rome?","tools":[{"type":"function","name":"weather"}]}`)
	first := readAll(t, resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, first)
	}
	golden(t, "responses-whole-tool-call.json", first+"\n")
	var r struct {
		ID     string `json:"id"`
		Output []struct {
			CallID string `json:"call_id"`
		} `json:"output"`
	}
	if err := json.Unmarshal([]byte(first), &r); err != nil || len(r.Output) != 1 || r.Output[0].CallID != "call_1" {
		t.Fatalf("first response: %v %s", err, first)
	}

	b.events = []sdk.Event{start("gpt-x"), text("21C in Rome"), finish(sdk.FinishStop)}
	resp = post(t, srv, "/v1/responses", `{"model":"default","previous_response_id":"`+r.ID+`","input":[{"type":"function_call_output","call_id":"call_1","output":"21C"}]}`)
	second := readAll(t, resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(second, `"previous_response_id":"`+r.ID+`"`) {
		t.Fatalf("continuation: %d %s", resp.StatusCode, second)
	}
	_, req := b.asked()
	want := []sdk.Message{
		{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "weather in Rome?"}}},
		{Role: sdk.RoleAssistant, Parts: []sdk.Part{sdk.ToolCall{ID: "call_1", Name: "weather", Input: json.RawMessage(`{"city":"Rome"}`)}}},
		{Role: sdk.RoleTool, Parts: []sdk.Part{sdk.ToolResult{CallID: "call_1", Name: "weather", Content: []sdk.Part{sdk.Text{Text: "21C"}}}}},
	}
	if diff := cmp.Diff(want, req.Messages); diff != "" {
		t.Errorf("continued conversation (-want +got):\n%s", diff)
	}

	get := func(method, path string) (int, string) {
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.StatusCode, readAll(t, resp.Body)
	}
	if status, body := get("GET", "/v1/responses/"+r.ID); status != 200 || body != first {
		t.Errorf("GET: %d %s, want the first response as sent", status, body)
	}
	if status, body := get("GET", "/v1/responses/"+r.ID+"/input_items"); status != 200 || !strings.Contains(body, "weather in Rome?") {
		t.Errorf("GET input_items: %d %s", status, body)
	}
	if status, body := get("DELETE", "/v1/responses/"+r.ID); status != 200 || !strings.Contains(body, `"deleted":true`) {
		t.Errorf("DELETE: %d %s", status, body)
	}
	if status, body := get("GET", "/v1/responses/"+r.ID); status != 404 || !strings.Contains(body, `"code":"not_found"`) {
		t.Errorf("GET after DELETE: %d %s", status, body)
	}
	resp = post(t, srv, "/v1/responses", `{"model":"default","previous_response_id":"`+r.ID+`","input":"and now?"}`)
	if body := readAll(t, resp.Body); resp.StatusCode != 400 || !strings.Contains(body, "previous_response_not_found") {
		t.Errorf("continuing a deleted response: %d %s", resp.StatusCode, body)
	}
	// store: false keeps nothing.
	n := len(store.m)
	post(t, srv, "/v1/responses", `{"model":"default","input":"x","store":false}`)
	if len(store.m) != n {
		t.Errorf("store: false kept a response")
	}
}

// A failure after the stream started ends it with an error event and
// response.failed, in band.
func TestResponsesStreamFails(t *testing.T) {
	t.Parallel()
	b := &fakeBackend{events: []sdk.Event{start("gpt-x"), text("Hel")}, err: &sdk.Error{Class: sdk.ClassTransient, Code: "cut_stream", Message: "cut"}}
	srv := newServer(t, b)
	resp := post(t, srv, "/v1/responses", `{"model":"default","input":"hi","stream":true}`)
	body := readAll(t, resp.Body)
	evs := parseSSE(t, body)
	if n := len(evs); n < 2 || evs[n-2].Event != "error" || evs[n-1].Event != "response.failed" || !strings.Contains(evs[n-1].Data, `"status":"failed"`) {
		t.Fatalf("a broken stream ends %s", body)
	}
	if got := resp.Header.Get("x-axon-ignored"); got != "" {
		t.Errorf("store left at its default, x-axon-ignored %q, want none", got)
	}
	// Asked for, it is named: without a store nothing is kept.
	b.events = []sdk.Event{start("gpt-x"), text("Hi"), finish(sdk.FinishStop)}
	b.err = nil
	resp = post(t, srv, "/v1/responses", `{"model":"default","input":"hi","store":true}`)
	readAll(t, resp.Body)
	if got := resp.Header.Get("x-axon-ignored"); got != "store" {
		t.Errorf("without a store, x-axon-ignored %q, want store", got)
	}
}

// A Responses stream keeps its answer to repeat it at the end, so it has
// the bound of a whole answer: past it the answer stops in band.
func TestResponsesStreamIsBounded(t *testing.T) {
	t.Parallel()
	b := &fakeBackend{events: []sdk.Event{start("gpt-x"), text(strings.Repeat("a", 600)), text(strings.Repeat("b", 600)), finish(sdk.FinishStop)}}
	srv := newServer(t, b, withMaxAnswerBytes(1000))
	resp := post(t, srv, "/v1/responses", `{"model":"default","input":"hi","stream":true}`)
	body := readAll(t, resp.Body)
	if !strings.Contains(body, "event: response.failed") || !strings.Contains(body, "answer_too_large") || strings.Contains(body, "bbbb") {
		t.Fatalf("an oversized Responses stream: %s", body)
	}
}
