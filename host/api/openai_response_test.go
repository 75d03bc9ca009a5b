package api

import (
	"net/http"
	"testing"

	"github.com/axonhq/axon/sdk"
)

const openaiAsk = `{"model":"default","messages":[{"role":"user","content":"hi"}]}`

func TestOpenAIWholeResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		events []sdk.Event
		answer *Answer
		want   string
	}{{
		name: "text, usage with cached tokens, the answering model",
		events: []sdk.Event{start("glm-4.6"), text("Hel"), text("lo"),
			{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(10), OutputTokens: sdk.Tokens(2), CacheReadTokens: sdk.Tokens(4), CacheWriteTokens: sdk.Tokens(1)}},
			finish(sdk.FinishStop)},
		want: `{"id":"chatcmpl-id1","object":"chat.completion","created":1767225600,"model":"glm-4.6",
			"choices":[{"index":0,"message":{"role":"assistant","content":"Hello","refusal":null},"logprobs":null,"finish_reason":"stop"}],
			"usage":{"prompt_tokens":15,"completion_tokens":2,"total_tokens":17,"prompt_tokens_details":{"cached_tokens":4}}}`, // prompt = 10 uncached + 4 read + 1 written
	}, {
		name: "reasoning and two parallel calls the backend numbered alike; no usage reported",
		events: []sdk.Event{start("claude-sonnet-4"), think("add "), think("and multiply"), signed("sig"),
			toolCall(0, "toolu_a", "add", `{"a":2,"b":3}`), toolCall(0, "toolu_m", "multiply", `{"a":2,"b":3}`),
			finish(sdk.FinishToolCalls)},
		want: `{"id":"chatcmpl-id1","object":"chat.completion","created":1767225600,"model":"claude-sonnet-4",
			"choices":[{"index":0,"message":{"role":"assistant","content":null,"reasoning_content":"add and multiply","refusal":null,
				"tool_calls":[
					{"id":"toolu_a","type":"function","function":{"name":"add","arguments":"{\"a\":2,\"b\":3}"}},
					{"id":"toolu_m","type":"function","function":{"name":"multiply","arguments":"{\"a\":2,\"b\":3}"}}]},
				"logprobs":null,"finish_reason":"tool_calls"}]}`,
	}, {
		name:   "a call finished as stop is reported as tool_calls; a call without id or input gets both",
		events: []sdk.Event{text("calling"), toolCall(3, "", "now", ``), finish(sdk.FinishStop)},
		answer: &Answer{Model: "qwen2.5:3b"},
		want: `{"id":"chatcmpl-id1","object":"chat.completion","created":1767225600,"model":"qwen2.5:3b",
			"choices":[{"index":0,"message":{"role":"assistant","content":"calling","refusal":null,
				"tool_calls":[{"id":"call_id2","type":"function","function":{"name":"now","arguments":"{}"}}]},
				"logprobs":null,"finish_reason":"tool_calls"}]}`,
	}, {
		name:   "length, only output tokens reported, model named by the request",
		events: []sdk.Event{text("Once upon"), {Type: sdk.EventUsage, Usage: &sdk.Usage{OutputTokens: sdk.Tokens(2)}}, finish(sdk.FinishLength)},
		want: `{"id":"chatcmpl-id1","object":"chat.completion","created":1767225600,"model":"default",
			"choices":[{"index":0,"message":{"role":"assistant","content":"Once upon","refusal":null},"logprobs":null,"finish_reason":"length"}],
			"usage":{"completion_tokens":2}}`,
	}, {
		name:   "reasoning tokens reported are named in completion_tokens_details",
		events: []sdk.Event{text("ok"), {Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(3), OutputTokens: sdk.Tokens(9), ReasoningTokens: sdk.Tokens(7)}}, finish(sdk.FinishStop)},
		want: `{"id":"chatcmpl-id1","object":"chat.completion","created":1767225600,"model":"default",
			"choices":[{"index":0,"message":{"role":"assistant","content":"ok","refusal":null},"logprobs":null,"finish_reason":"stop"}],
			"usage":{"prompt_tokens":3,"completion_tokens":9,"total_tokens":12,"completion_tokens_details":{"reasoning_tokens":7}}}`,
	}, {
		name:   "content filter; tool_calls without a call is stop",
		events: []sdk.Event{text("I can't"), finish(sdk.FinishContentFilter)},
		want: `{"id":"chatcmpl-id1","object":"chat.completion","created":1767225600,"model":"default",
			"choices":[{"index":0,"message":{"role":"assistant","content":"I can't","refusal":null},"logprobs":null,"finish_reason":"content_filter"}]}`,
	}, {
		name:   "tool_calls without a call is stop",
		events: []sdk.Event{text("done"), finish(sdk.FinishToolCalls)},
		want: `{"id":"chatcmpl-id1","object":"chat.completion","created":1767225600,"model":"default",
			"choices":[{"index":0,"message":{"role":"assistant","content":"done","refusal":null},"logprobs":null,"finish_reason":"stop"}]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, &fakeBackend{events: tt.events, answer: tt.answer})
			resp := post(t, srv, "/v1/chat/completions", openaiAsk)
			body := readAll(t, resp.Body)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d, Content-Type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			sameJSON(t, body, tt.want)
		})
	}
}

func TestOpenAIStream(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		body   string
		events []sdk.Event
	}{{
		name: "openai-stream-text.sse",
		body: `{"model":"default","messages":[{"role":"user","content":"hi"}],"stream":true}`,
		events: []sdk.Event{start("gpt-4o-2024-08-06"), text("Olá"), text("! \"quoted\"\n\u2028"),
			usage(20, 2), finish(sdk.FinishStop)},
	}, {
		name: "openai-stream-reasoning-parallel-tools-usage.sse",
		body: `{"model":"default","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`,
		events: []sdk.Event{start("claude-sonnet-4"), think("both"), signed("sig"), redacted("opaque"), text("Calling."),
			toolCall(0, "toolu_a", "add", `{"a": 2, "b": 3}`), toolCall(0, "toolu_m", "multiply", `{"a":2,"b":3}`),
			{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(106), OutputTokens: sdk.Tokens(50), CacheReadTokens: sdk.Tokens(0)}},
			finish(sdk.FinishToolCalls)},
	}, {
		name:   "openai-stream-usage-requested-none-reported.sse",
		body:   `{"model":"default","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`,
		events: []sdk.Event{text("hi"), finish(sdk.FinishStop)},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, &fakeBackend{events: tt.events})
			resp := post(t, srv, "/v1/chat/completions", tt.body)
			body := readAll(t, resp.Body)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
				t.Fatalf("status %d, Content-Type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			r := readOpenAIStream(t, parseSSE(t, body))
			if !r.Done {
				t.Error("no [DONE]")
			}
			for i, c := range r.ToolCalls {
				if c.Index != i {
					t.Errorf("tool call %d streamed at index %d; want distinct indices 0, 1, ...", i, c.Index)
				}
			}
			golden(t, tt.name, body)
		})
	}
}
