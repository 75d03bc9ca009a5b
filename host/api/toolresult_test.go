package api

import (
	"net/http"
	"testing"
)

// TestToolResultWithoutCall: a tool result whose id no earlier assistant
// tool call issued is refused with a 400 of the client's format naming the
// id, before any backend is asked; a result answering a real call passes.
func TestToolResultWithoutCall(t *testing.T) {
	t.Parallel()
	const (
		openaiCall = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_a","type":"function","function":{"name":"add","arguments":"{}"}}]}`
		anthCall   = `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"add","input":{}}]}`
	)
	tests := []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"openai, no call at all", "/v1/chat/completions",
			`{"model":"default","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_x","content":"5"}]}`, 400,
			`{"error":{"message":"messages[1].tool_call_id: \"call_x\" answers no tool call: no assistant message before it has a tool call with this id","type":"invalid_request_error","param":"messages[1].tool_call_id","code":"invalid_value"}}`},
		{"openai, another id", "/v1/chat/completions",
			`{"model":"default","messages":[{"role":"user","content":"hi"},` + openaiCall + `,{"role":"tool","tool_call_id":"call_a","content":"5"},{"role":"tool","tool_call_id":"call_b","content":"6"}]}`, 400,
			`{"error":{"message":"messages[3].tool_call_id: \"call_b\" answers no tool call: no assistant message before it has a tool call with this id","type":"invalid_request_error","param":"messages[3].tool_call_id","code":"invalid_value"}}`},
		{"openai, the result before its call", "/v1/chat/completions",
			`{"model":"default","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_a","content":"5"},` + openaiCall + `]}`, 400,
			`{"error":{"message":"messages[1].tool_call_id: \"call_a\" answers no tool call: no assistant message before it has a tool call with this id","type":"invalid_request_error","param":"messages[1].tool_call_id","code":"invalid_value"}}`},
		{"openai, a known id", "/v1/chat/completions",
			`{"model":"default","messages":[{"role":"user","content":"hi"},` + openaiCall + `,{"role":"tool","tool_call_id":"call_a","content":"5"}]}`, 200, ""},
		{"anthropic, no call at all", "/v1/messages",
			`{"model":"default","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"5"}]}]}`, 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"messages[0].content[0].tool_use_id: \"toolu_x\" answers no tool call: no assistant turn before it has a tool_use block with this id"}}`},
		{"anthropic, another id", "/v1/messages",
			`{"model":"default","max_tokens":5,"messages":[{"role":"user","content":"hi"},` + anthCall + `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"5"},{"type":"tool_result","tool_use_id":"toolu_b","content":"6"}]}]}`, 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"messages[2].content[1].tool_use_id: \"toolu_b\" answers no tool call: no assistant turn before it has a tool_use block with this id"}}`},
		{"anthropic, a known id", "/v1/messages",
			`{"model":"default","max_tokens":5,"messages":[{"role":"user","content":"hi"},` + anthCall + `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"5"}]}]}`, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := &fakeBackend{events: okEvents}
			srv := newServer(t, b)
			resp := post(t, srv, tt.path, tt.body)
			body := readAll(t, resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if tt.status == http.StatusOK {
				return
			}
			sameJSON(t, body, tt.want)
			if _, req := b.asked(); req != nil {
				t.Error("the backend was asked")
			}
		})
	}
}
