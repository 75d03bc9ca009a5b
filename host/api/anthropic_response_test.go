package api

import (
	"net/http"
	"testing"

	"github.com/axonhq/axon/sdk"
)

const anthropicAsk = `{"model":"default","max_tokens":1024,"messages":[{"role":"user","content":"hi"}]}`

func TestAnthropicWholeResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		events []sdk.Event
		want   string
	}{{
		name: "thinking with signature, redacted thinking, text, parallel tool use, cache usage",
		events: []sdk.Event{start("claude-sonnet-4"), think("add "), think("and multiply"), signed("sig=="), redacted("opaque"),
			text("Calling "), text("both."), toolCall(0, "toolu_a", "add", `{"a": 2, "b": 3}`), toolCall(0, "toolu_m", "multiply", `{}`),
			{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(424), OutputTokens: sdk.Tokens(119), CacheReadTokens: sdk.Tokens(0), CacheWriteTokens: sdk.Tokens(12)}},
			finish(sdk.FinishToolCalls)},
		want: `{"id":"msg_id1","type":"message","role":"assistant","model":"claude-sonnet-4","content":[
				{"type":"thinking","thinking":"add and multiply","signature":"sig=="},
				{"type":"redacted_thinking","data":"opaque"},
				{"type":"text","text":"Calling both."},
				{"type":"tool_use","id":"toolu_a","name":"add","input":{"a":2,"b":3}},
				{"type":"tool_use","id":"toolu_m","name":"multiply","input":{}}],
			"stop_reason":"tool_use","stop_sequence":null,
			"usage":{"input_tokens":424,"output_tokens":119,"cache_read_input_tokens":0,"cache_creation_input_tokens":12}}`,
	}, {
		name:   "reasoning without a signature (an OpenAI-format provider), usage not reported",
		events: []sdk.Event{start("deepseek-reasoner"), think("Hmm"), text("Hi"), finish(sdk.FinishStop)},
		want: `{"id":"msg_id1","type":"message","role":"assistant","model":"deepseek-reasoner","content":[
				{"type":"thinking","thinking":"Hmm","signature":""},{"type":"text","text":"Hi"}],
			"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}`,
	}, {
		name:   "a call finished as stop is tool_use; generated id",
		events: []sdk.Event{toolCall(0, "", "now", ``), usage(5, 1), finish(sdk.FinishStop)},
		want: `{"id":"msg_id1","type":"message","role":"assistant","model":"default","content":[
				{"type":"tool_use","id":"call_id2","name":"now","input":{}}],
			"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}`,
	}, {
		name:   "length is max_tokens",
		events: []sdk.Event{text("Once"), finish(sdk.FinishLength)},
		want: `{"id":"msg_id1","type":"message","role":"assistant","model":"default","content":[{"type":"text","text":"Once"}],
			"stop_reason":"max_tokens","stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}`,
	}, {
		name:   "content filter is refusal",
		events: []sdk.Event{text("No."), finish(sdk.FinishContentFilter)},
		want: `{"id":"msg_id1","type":"message","role":"assistant","model":"default","content":[{"type":"text","text":"No."}],
			"stop_reason":"refusal","stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}`,
	}, {
		name:   "an empty answer",
		events: []sdk.Event{finish(sdk.FinishStop)},
		want: `{"id":"msg_id1","type":"message","role":"assistant","model":"default","content":[],
			"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, &fakeBackend{events: tt.events})
			resp := post(t, srv, "/v1/messages", anthropicAsk)
			body := readAll(t, resp.Body)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d, Content-Type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			sameJSON(t, body, tt.want)
		})
	}
}

func TestAnthropicStream(t *testing.T) {
	t.Parallel()
	const ask = `{"model":"default","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	tests := []struct {
		name   string
		events []sdk.Event
	}{{
		name: "anthropic-stream-thinking-text-parallel-tools.sse",
		events: []sdk.Event{start("claude-sonnet-4"),
			{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(424), CacheReadTokens: sdk.Tokens(0), CacheWriteTokens: sdk.Tokens(12)}},
			think("add "), think("and multiply"), signed("sig=="), text("Calling "), text("both."),
			toolCall(0, "toolu_a", "add", `{"a": 2, "b": 3}`), toolCall(0, "toolu_m", "multiply", `{}`),
			{Type: sdk.EventUsage, Usage: &sdk.Usage{OutputTokens: sdk.Tokens(119)}},
			finish(sdk.FinishToolCalls)},
	}, {
		name: "anthropic-stream-openai-provider.sse",
		events: []sdk.Event{start("deepseek-reasoner"), think("Hmm"), think(", hi"), text("Hello"),
			toolCall(0, "call_1", "lookup", `{"q":"x"}`), usage(6, 212), finish(sdk.FinishStop)},
	}, {
		name:   "anthropic-stream-redacted-then-text.sse",
		events: []sdk.Event{start("claude-sonnet-4-5"), redacted("EqkE"), redacted("EtgB"), text("I notice"), finish(sdk.FinishStop)},
	}, {
		name:   "anthropic-stream-empty.sse",
		events: []sdk.Event{usage(3, 0), finish(sdk.FinishStop)},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, &fakeBackend{events: tt.events})
			resp := post(t, srv, "/v1/messages", ask)
			body := readAll(t, resp.Body)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
				t.Fatalf("status %d, Content-Type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if r := readAnthropicStream(t, parseSSE(t, body)); !r.Stopped {
				t.Error("no message_stop")
			}
			golden(t, tt.name, body)
		})
	}
}
