package api

import (
	"encoding/json"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

func TestAnthropicDecode(t *testing.T) {
	t.Parallel()
	jpeg := []byte{0xff, 0xd8, 0xff}
	user := func(s string) sdk.Message {
		return sdk.Message{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: s}}}
	}
	tests := []struct {
		name string
		body string
		want *call
	}{{
		name: "minimal",
		body: `{"model":"default","max_tokens":1024,"messages":[{"role":"user","content":"hi"}]}`,
		want: &call{model: "default", req: &sdk.Request{MaxTokens: 1024, Messages: []sdk.Message{user("hi")}}},
	}, {
		name: "system blocks, images, stop sequences, temperature, stream",
		body: `{"model":"default","max_tokens":10,"stream":true,"temperature":0.2,"stop_sequences":["###"],
			"system":[{"type":"text","text":"be brief","cache_control":{"type":"ephemeral"}},{"type":"text","text":"in French"}],
			"messages":[{"role":"user","content":[
				{"type":"text","text":"what is this?"},
				{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/"}},
				{"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}}]}]}`,
		want: &call{model: "default", stream: true, req: &sdk.Request{
			MaxTokens: 10, Temperature: ptr(0.2), StopSequences: []string{"###"},
			System: []sdk.Text{{Text: "be brief", Cache: sdk.CacheDefault}, {Text: "in French"}},
			Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{
				sdk.Text{Text: "what is this?"},
				sdk.Image{MediaType: "image/jpeg", Data: jpeg},
				sdk.Image{URL: "https://example.com/cat.jpg"},
			}}},
		}},
	}, {
		name: "tool turn: thinking with signature, redacted thinking, parallel tool_use, results ahead of text",
		body: `{"model":"default","max_tokens":100,"messages":[
			{"role":"user","content":"add and multiply 2 and 3"},
			{"role":"assistant","content":[
				{"type":"thinking","thinking":"both tools","signature":"sig=="},
				{"type":"redacted_thinking","data":"opaque"},
				{"type":"text","text":"calling"},
				{"type":"tool_use","id":"toolu_a","name":"add","input":{"a":2,"b":3}},
				{"type":"tool_use","id":"toolu_m","name":"multiply","input":{}}]},
			{"role":"user","content":[
				{"type":"text","text":"here you go"},
				{"type":"tool_result","tool_use_id":"toolu_a","content":"5"},
				{"type":"tool_result","tool_use_id":"toolu_m","is_error":true,"content":[{"type":"text","text":"overflow"},
					{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/"}}]}]}]}`,
		want: &call{model: "default", req: &sdk.Request{MaxTokens: 100, Messages: []sdk.Message{
			user("add and multiply 2 and 3"),
			{Role: sdk.RoleAssistant, Parts: []sdk.Part{
				sdk.Reasoning{Text: "both tools", Signature: "sig=="},
				sdk.Reasoning{Redacted: "opaque"},
				sdk.Text{Text: "calling"},
				sdk.ToolCall{ID: "toolu_a", Name: "add", Input: json.RawMessage(`{"a":2,"b":3}`)},
				sdk.ToolCall{ID: "toolu_m", Name: "multiply", Input: json.RawMessage(`{}`)},
			}},
			{Role: sdk.RoleTool, Parts: []sdk.Part{
				sdk.ToolResult{CallID: "toolu_a", Name: "add", Content: []sdk.Part{sdk.Text{Text: "5"}}},
				sdk.ToolResult{CallID: "toolu_m", Name: "multiply", IsError: true, Content: []sdk.Part{
					sdk.Text{Text: "overflow"}, sdk.Image{MediaType: "image/jpeg", Data: jpeg},
				}},
			}},
			user("here you go"),
		}}},
	}, {
		name: "tools, tool choice any without parallel calls, thinking budget, top_p and top_k",
		body: `{"model":"default","max_tokens":100,"messages":[{"role":"user","content":"x"}],
			"tools":[{"name":"weather","description":"Get weather","input_schema":{"type":"object"}},{"type":"custom","name":"plain"}],
			"tool_choice":{"type":"any","disable_parallel_tool_use":true},
			"thinking":{"type":"enabled","budget_tokens":4000},"top_p":0.9,"top_k":40,"metadata":{"user_id":"u"}}`,
		want: &call{model: "default", ignored: "metadata.user_id", req: &sdk.Request{
			MaxTokens: 100, Messages: []sdk.Message{user("x")},
			Tools: []sdk.ToolSpec{
				{Name: "weather", Description: "Get weather", InputSchema: json.RawMessage(`{"type":"object"}`)},
				{Name: "plain"},
			},
			ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceRequired, Sequential: true},
			Options: map[string]json.RawMessage{
				"thinking_budget": json.RawMessage(`4000`),
				"top_p":           json.RawMessage(`0.9`),
				"top_k":           json.RawMessage(`40`),
			},
		}},
	}, {
		name: "thinking disabled sets a zero budget",
		body: `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],"thinking":{"type":"disabled"}}`,
		want: &call{model: "m", req: &sdk.Request{MaxTokens: 1, Messages: []sdk.Message{user("x")},
			Options: map[string]json.RawMessage{"thinking_budget": json.RawMessage(`0`)}}},
	}, {
		name: "adaptive thinking sends no budget, and says so",
		body: `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],"thinking":{"type":"adaptive"}}`,
		want: &call{model: "m", ignored: "thinking", req: &sdk.Request{MaxTokens: 1, Messages: []sdk.Message{user("x")}}},
	}}
	for _, mode := range []struct {
		choice string
		want   sdk.ToolChoice
	}{
		{`{"type":"auto"}`, sdk.ToolChoice{Mode: sdk.ToolChoiceAuto}},
		{`{"type":"none"}`, sdk.ToolChoice{Mode: sdk.ToolChoiceNone}},
		{`{"type":"tool","name":"weather"}`, sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "weather"}},
	} {
		tests = append(tests, struct {
			name string
			body string
			want *call
		}{
			name: "tool choice " + mode.choice,
			body: `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],"tool_choice":` + mode.choice + `}`,
			want: &call{model: "m", req: &sdk.Request{MaxTokens: 1, Messages: []sdk.Message{user("x")}, ToolChoice: mode.want}},
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := anthropicDialect{}.decode([]byte(tt.body))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, callCmp); diff != "" {
				t.Errorf("decode mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnthropicDecodeRejects(t *testing.T) {
	t.Parallel()
	const msgs = `"messages":[{"role":"user","content":"x"}]`
	tests := []struct {
		name, body string
		code       string
		param      string
		message    string
	}{
		{"not JSON", `[`, "invalid_json", "", "not valid JSON"},
		{"no model", `{"max_tokens":1,` + msgs + `}`, "missing_required_parameter", "model", "field required"},
		{"no max_tokens", `{"model":"m",` + msgs + `}`, "missing_required_parameter", "max_tokens", "max_tokens: field required"},
		{"zero max_tokens", `{"model":"m","max_tokens":0,` + msgs + `}`, "invalid_value", "max_tokens", "at least 1"},
		{"no messages", `{"model":"m","max_tokens":1}`, "missing_required_parameter", "messages", "field required"},
		{"system role", `{"model":"m","max_tokens":1,"messages":[{"role":"system","content":"x"}]}`, "invalid_value", "messages[0].role", "top-level system"},
		{"message without content", `{"model":"m","max_tokens":1,"messages":[{"role":"user"}]}`, "missing_required_parameter", "messages[0].content", "field required"},
		{"string message", `{"model":"m","max_tokens":1,"messages":["hi"]}`, "invalid_value", "messages", "want"},
		{"document block without a source", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"document"}]}]}`, "missing_required_parameter", "messages[0].content[0].source", `field required`},
		{"document asking for citations", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","data":"d"},"citations":{"enabled":true}}]}]}`, "unsupported_value", "messages[0].content[0].citations.enabled", "citations are not supported"},
		{"document citations not an object", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","data":"d"},"citations":[1]}]}]}`, "invalid_value", "messages[0].content[0].citations", "enabled"},
		{"thinking enabled without a budget", `{"model":"m","max_tokens":1,"thinking":{"type":"enabled"},` + msgs + `}`, "missing_required_parameter", "thinking.budget_tokens", "field required"},
		{"thinking of an unknown type", `{"model":"m","max_tokens":1,"thinking":{"type":"sometimes"},` + msgs + `}`, "invalid_value", "thinking.type", "adaptive"},
		{"MCP connector", `{"model":"m","max_tokens":1,"mcp_servers":[{"type":"url","url":"https://x","name":"x"}],` + msgs + `}`, "unsupported_value", "mcp_servers", "MCP connector"},
		{"container", `{"model":"m","max_tokens":1,"container":"c1",` + msgs + `}`, "unsupported_value", "container", "containers"},
		{"output format of another type", `{"model":"m","max_tokens":1,"output_config":{"format":{"type":"json_object"}},` + msgs + `}`, "invalid_value", "output_config.format.type", "json_schema"},
		{"tool_use in a user turn", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}]}`, "unsupported_value", "messages[0].content[0].type", "user turn"},
		{"tool_result in an assistant turn", `{"model":"m","max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"tool_result","tool_use_id":"t"}]}]}`, "unsupported_value", "messages[0].content[0].type", "assistant turn"},
		{"image from a file id", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"f"}}]}]}`, "unsupported_value", "messages[0].content[0].source.type", "base64 and url"},
		{"image without media type", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"AA=="}}]}]}`, "missing_required_parameter", "messages[0].content[0].source.media_type", "field required"},
		{"tool_result without id", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"tool_result","content":"5"}]}]}`, "missing_required_parameter", "messages[0].content[0].tool_use_id", "field required"},
		{"tool_use input not an object", `{"model":"m","max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":[1]}]}]}`, "invalid_value", "messages[0].content[0].input", "JSON object"},
		{"server tool", `{"model":"m","max_tokens":1,` + msgs + `,"tools":[{"type":"web_search_20250305","name":"web_search"}]}`, "unsupported_value", "tools[0].type", "server tool"},
		{"tool choice tool without name", `{"model":"m","max_tokens":1,` + msgs + `,"tool_choice":{"type":"tool"}}`, "missing_required_parameter", "tool_choice.name", "field required"},
		{"unknown tool choice", `{"model":"m","max_tokens":1,` + msgs + `,"tool_choice":{"type":"maybe"}}`, "invalid_value", "tool_choice.type", `"maybe"`},
		{"system image", `{"model":"m","max_tokens":1,` + msgs + `,"system":[{"type":"image"}]}`, "unsupported_value", "system[0].type", "only text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := anthropicDialect{}.decode([]byte(tt.body))
			checkReject(t, err, tt.code, tt.param, tt.message)
		})
	}
}
