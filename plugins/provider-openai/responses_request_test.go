package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// ownReasoning is encrypted reasoning as this plugin's responses mode
// hands it out (see responses_reasoning.go).
var ownReasoning = sdk.Reasoning{Redacted: encodeEncryptedReasoning("rs_1", "gAAAAB-encrypted")}

// reasoningTurns is a tool-calling conversation whose assistant turn holds
// this mode's summary and encrypted reasoning, another vendor's signed and
// redacted reasoning, and plain reasoning text.
var reasoningTurns = []sdk.Message{
	user(text("Weather in Florence?")),
	assistant(
		sdk.Reasoning{Text: "Summary: call the tool."},
		ownReasoning,
		sdk.Reasoning{Text: "Anthropic thinking", Signature: "sig-from-anthropic"},
		sdk.Reasoning{Redacted: "EmwKAhgBEgy-anthropic-redacted"},
		text("Checking."),
		sdk.ToolCall{ID: "call_1", Name: "weather", Input: json.RawMessage(`{"location":"Florence"}`)},
	),
	toolTurn(result("call_1", "18°C, sunny")),
}

func TestBuildResponsesRequestGolden(t *testing.T) {
	t.Parallel()
	png := []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}
	cases := []struct {
		name   string
		config string
		req    sdk.Request
	}{
		{
			name:   "multi-turn-tool-call-and-result",
			config: `{"model":"gpt-4o","api":"responses"}`,
			req: sdk.Request{
				System: sdk.SystemPrompt("Use tools when they help."),
				Messages: []sdk.Message{
					user(text("What's the weather in Florence?")),
					assistant(text("Let me check."), sdk.ToolCall{ID: "call_1", Name: "weather", Input: json.RawMessage(`{"location":"Florence"}`)}),
					toolTurn(result("call_1", "18°C, sunny")),
					assistant(text("It is 18°C and sunny.")),
					user(text("And the time?")),
				},
				Tools:       []sdk.ToolSpec{weatherTool, clockTool},
				MaxTokens:   300,
				Temperature: ptr(0.2),
			},
		},
		{
			name:   "tool-result-document",
			config: `{"model":"gpt-4o","api":"responses"}`,
			req: sdk.Request{
				Messages: []sdk.Message{
					user(text("Read the report")),
					assistant(sdk.ToolCall{ID: "call_r", Name: "read", Input: json.RawMessage(`{}`)}),
					toolTurn(sdk.ToolResult{CallID: "call_r", Content: []sdk.Part{text("attached"), sdk.Document{MediaType: "application/pdf", Data: []byte("%PDF-1.7"), Title: "q3.pdf"}}}),
				},
				Tools: []sdk.ToolSpec{{Name: "read"}},
			},
		},
		{
			name:   "parallel-tool-calls-and-results",
			config: `{"model":"gpt-4o","api":"responses","max_tokens":1000}`,
			req: sdk.Request{
				Messages: []sdk.Message{
					user(text("Weather in Florence and Rome, and the time?")),
					assistant(
						sdk.ToolCall{ID: "call_a", Name: "weather", Input: json.RawMessage(`{"location":"Florence"}`)},
						sdk.ToolCall{ID: "call_b", Name: "weather", Input: json.RawMessage(`{"location":"Rome"}`)},
						sdk.ToolCall{ID: "call_c", Name: "clock"},
					),
					toolTurn(
						result("call_a", "18°C"),
						sdk.ToolResult{CallID: "call_b", Content: []sdk.Part{text("station offline")}, IsError: true},
						result("call_c", "12:00"),
					),
				},
				Tools: []sdk.ToolSpec{weatherTool, clockTool},
			},
		},
		{
			name:   "images",
			config: `{"model":"gpt-4o","api":"responses"}`,
			req: sdk.Request{
				Messages: []sdk.Message{
					user(text("What is in these?"), sdk.Image{MediaType: "image/png", Data: png}, sdk.Image{URL: "https://example.com/cat.jpg"}),
					assistant(sdk.ToolCall{ID: "call_s", Name: "screenshot", Input: json.RawMessage(`{}`)}),
					// The call's output keeps the text; the image follows in a
					// user message.
					toolTurn(sdk.ToolResult{CallID: "call_s", Content: []sdk.Part{text("captured"), sdk.Image{MediaType: "image/png", Data: png}}}),
				},
				Tools: []sdk.ToolSpec{{Name: "screenshot"}},
			},
		},
		{
			// Reasoning on: encrypted content is asked for, and this mode's
			// own encrypted reasoning goes back as a reasoning item before
			// the call; every other kind of reasoning is dropped.
			name:   "reasoning-passed-back",
			config: `{"model":"gpt-5","api":"responses","reasoning_effort":"low"}`,
			req: sdk.Request{
				Messages: reasoningTurns,
				Tools:    []sdk.ToolSpec{weatherTool},
				Options:  map[string]json.RawMessage{"reasoning_effort": json.RawMessage(`"high"`)},
			},
		},
		{
			// Reasoning off: non-reasoning models refuse encrypted content,
			// so none is asked for and none is sent back.
			name:   "reasoning-dropped-without-effort",
			config: `{"model":"gpt-4o","api":"responses"}`,
			req:    sdk.Request{Messages: reasoningTurns, Tools: []sdk.ToolSpec{weatherTool}},
		},
		{
			name:   "tool-choice-named",
			config: `{"model":"gpt-4o","api":"responses"}`,
			req:    sdk.Request{Messages: []sdk.Message{user(text("hi"))}, Tools: []sdk.ToolSpec{weatherTool, clockTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "clock"}},
		},
		{
			name:   "tool-choice-required",
			config: `{"model":"gpt-4o","api":"responses"}`,
			req:    sdk.Request{Messages: []sdk.Message{user(text("hi"))}, Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceRequired}},
		},
		{
			name:   "options-json-schema",
			config: `{"model":"gpt-4o","api":"responses"}`,
			req: sdk.Request{
				Messages: []sdk.Message{user(text("JSON please."))},
				Tools:    []sdk.ToolSpec{weatherTool},
				Options: map[string]json.RawMessage{
					"response_format":     json.RawMessage(`{"type":"json_schema","json_schema":{"name":"weather","strict":true,"schema":{"type":"object","properties":{"c":{"type":"number"}}}}}`),
					"parallel_tool_calls": json.RawMessage(`false`),
					"top_p":               json.RawMessage(`0.9`),
					"seed":                json.RawMessage(`42`), // no such field on this wire: not sent
				},
			},
		},
		{
			name:   "output-json-schema-strict-sequential",
			config: `{"model":"gpt-4o","api":"responses"}`,
			req: sdk.Request{
				Messages:   []sdk.Message{user(text("Weather in Oslo, as JSON."))},
				Tools:      []sdk.ToolSpec{weatherTool},
				ToolChoice: sdk.ToolChoice{Sequential: true},
				Output:     &sdk.Output{Kind: sdk.OutputJSONSchema, Name: "weather", Schema: json.RawMessage(`{"type":"object","properties":{"c":{"type":"number"}},"required":["c"],"additionalProperties":false}`), Strict: true},
				Options:    map[string]json.RawMessage{"response_format": json.RawMessage(`{"type":"text"}`)},
			},
		},
		{
			name:   "output-json-object",
			config: `{"model":"gpt-4o","api":"responses"}`,
			req: sdk.Request{
				Messages: []sdk.Message{user(text("JSON, please."))},
				Output:   &sdk.Output{Kind: sdk.OutputJSON},
			},
		},
		{
			name:   "documents",
			config: `{"model":"gpt-4o","api":"responses"}`,
			req: sdk.Request{Messages: []sdk.Message{user(
				text("Compare these."),
				sdk.Document{MediaType: "application/pdf", Data: []byte("%PDF-1.4 x"), Title: "report.pdf"},
				sdk.Document{MediaType: "application/pdf", URL: "https://example.com/y.pdf"},
				sdk.Document{MediaType: "text/plain", Data: []byte("plain words"), Title: "Notes"},
				// What the file part has no field for goes before it: a URL
				// PDF's title and context.
				sdk.Document{MediaType: "application/pdf", URL: "https://example.com/z.pdf", Title: "Q3", Context: "the board's copy"},
			)}},
		},
		{
			name:   "system-role-messages",
			config: `{"model":"gpt-4o","api":"responses"}`,
			req: sdk.Request{
				System: sdk.SystemPrompt("First."),
				Messages: []sdk.Message{
					{Role: sdk.RoleSystem, Parts: []sdk.Part{text("Second.")}},
					user(text("one"), text("two")),
				},
				Options: map[string]json.RawMessage{"response_format": json.RawMessage(`{"type":"json_object"}`)},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := parseConfig(sdk.Config{Values: json.RawMessage(c.config)})
			if err != nil {
				t.Fatal(err)
			}
			wire, err := buildResponsesRequest(cfg, &c.req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.MarshalIndent(wire, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "request/responses/"+c.name+".json", string(b)+"\n")
		})
	}
}

func TestBuildResponsesRequestErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		req  sdk.Request
		want string // in the message
	}{
		{"stop sequences", sdk.Request{Messages: []sdk.Message{user(text("hi"))}, StopSequences: []string{"END"}}, "stop sequences are not supported"},
		{"no model", sdk.Request{Model: "", Messages: []sdk.Message{user(text("hi"))}}, "no model"},
		{"named tool not offered", sdk.Request{
			Messages: []sdk.Message{user(text("hi"))}, Tools: []sdk.ToolSpec{weatherTool},
			ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "clock"},
		}, "not among"},
		{"unknown role", sdk.Request{Messages: []sdk.Message{{Role: "narrator", Parts: []sdk.Part{text("hi")}}}}, "unknown role"},
		{"image in assistant turn", sdk.Request{Messages: []sdk.Message{assistant(sdk.Image{URL: "https://x/y.png"})}}, "no place"},
		{"tool result without call id", sdk.Request{Messages: []sdk.Message{toolTurn(result("", "x"))}}, "call id"},
		{"tool call without id", sdk.Request{Messages: []sdk.Message{assistant(sdk.ToolCall{Name: "weather"})}}, "without id"},
		{"inline image without media type", sdk.Request{Messages: []sdk.Message{user(sdk.Image{Data: []byte{1}})}}, "media type"},
		{"json_schema not an object", sdk.Request{Messages: []sdk.Message{user(text("hi"))}, Options: map[string]json.RawMessage{"response_format": json.RawMessage(`{"type":"json_schema","json_schema":"x"}`)}}, "json_schema"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			model := `"m"`
			if c.name == "no model" {
				model = `""`
			}
			cfg, err := parseConfig(sdk.Config{Values: json.RawMessage(`{"api":"responses","model":` + model + `}`)})
			if err != nil {
				t.Fatal(err)
			}
			_, err = buildResponsesRequest(cfg, &c.req)
			if got := sdk.ClassOf(err); got != sdk.ClassPermanent {
				t.Fatalf("got %v (class %q), want a permanent error", err, got)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
}

// TestEncryptedReasoningEnvelope: only what this mode produced is read
// back as encrypted reasoning; other vendors' opaque data never is.
func TestEncryptedReasoningEnvelope(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		redacted string
		ok       bool
	}{
		{"own", encodeEncryptedReasoning("rs_1", "gAAAA"), true},
		{"anthropic redacted_thinking", "EmwKAhgBEgy", false},
		{"empty", "", false},
		{"no id", `{"encrypted_content":"gAAAA"}`, false},
		{"no content", `{"id":"rs_1"}`, false},
		{"unknown field", `{"id":"rs_1","encrypted_content":"gAAAA","data":"x"}`, false},
		{"trailing data", `{"id":"rs_1","encrypted_content":"gAAAA"}{}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, ok := decodeEncryptedReasoning(c.redacted)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if ok && (r.ID != "rs_1" || r.EncryptedContent != "gAAAA") {
				t.Errorf("decoded %+v", r)
			}
		})
	}
}
