package main

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

func ptr[T any](v T) *T { return &v }

var weatherTool = sdk.ToolSpec{
	Name:        "weather",
	Description: "Current weather for a place.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`),
}

var clockTool = sdk.ToolSpec{Name: "clock", Description: "The time now."}

func user(parts ...sdk.Part) sdk.Message { return sdk.Message{Role: sdk.RoleUser, Parts: parts} }
func assistant(parts ...sdk.Part) sdk.Message {
	return sdk.Message{Role: sdk.RoleAssistant, Parts: parts}
}
func toolTurn(parts ...sdk.Part) sdk.Message { return sdk.Message{Role: sdk.RoleTool, Parts: parts} }
func text(s string) sdk.Text                 { return sdk.Text{Text: s} }

func result(id, s string) sdk.ToolResult {
	return sdk.ToolResult{CallID: id, Content: []sdk.Part{text(s)}}
}

// thinkingTurn is a multi-turn conversation with reasoning on the
// assistant turn, as DeepSeek or Z.ai would have answered it.
var thinkingTurn = []sdk.Message{
	user(text("Weather in Florence?")),
	assistant(
		sdk.Reasoning{Text: "The user wants the weather; ", Signature: "sig-from-anthropic"},
		sdk.Reasoning{Text: "call the tool."},
		sdk.ToolCall{ID: "call_1", Name: "weather", Input: json.RawMessage(`{"location":"Florence"}`)},
	),
	toolTurn(result("call_1", "18°C, sunny")),
}

func TestBuildRequestGolden(t *testing.T) {
	t.Parallel()
	png := []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}
	cases := []struct {
		name   string
		config string
		req    sdk.Request
	}{
		{
			name:   "text-system-sampling",
			config: `{"model":"gpt-4o-mini","max_tokens":512}`,
			req: sdk.Request{
				System:        sdk.SystemPrompt("You are terse."),
				Messages:      []sdk.Message{user(text("Say hello."))},
				Temperature:   ptr(0.2),
				StopSequences: []string{"\n\n", "END"},
			},
		},
		{
			name:   "multi-turn-tool-call-and-result",
			config: `{"model":"gpt-4o"}`,
			req: sdk.Request{
				System: sdk.SystemPrompt("Use tools when they help."),
				Messages: []sdk.Message{
					user(text("What's the weather in Florence?")),
					assistant(text("Let me check."), sdk.ToolCall{ID: "call_1", Name: "weather", Input: json.RawMessage(`{"location":"Florence"}`)}),
					toolTurn(result("call_1", "18°C, sunny")),
					assistant(text("It is 18°C and sunny.")),
					user(text("And the time?")),
				},
				Tools:     []sdk.ToolSpec{weatherTool, clockTool},
				MaxTokens: 300,
			},
		},
		{
			name:   "parallel-tool-calls-and-results",
			config: `{"model":"gpt-4o"}`,
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
			name:   "reasoning-none-by-default",
			config: `{"model":"deepseek-reasoner"}`,
			req:    sdk.Request{Messages: thinkingTurn, Tools: []sdk.ToolSpec{weatherTool}},
		},
		{
			name:   "reasoning-content-field",
			config: `{"model":"deepseek-reasoner","reasoning_field":"reasoning_content"}`,
			req:    sdk.Request{Messages: thinkingTurn, Tools: []sdk.ToolSpec{weatherTool}},
		},
		{
			// A tool-calling turn without reasoning still carries the
			// field (DeepSeek refuses the turn otherwise); a text turn
			// without reasoning does not.
			name:   "reasoning-content-empty-on-tool-turn",
			config: `{"model":"deepseek-v4-flash","reasoning_field":"reasoning_content"}`,
			req: sdk.Request{
				Messages: []sdk.Message{
					user(text("Weather in Florence?")),
					assistant(sdk.ToolCall{ID: "call_1", Name: "weather", Input: json.RawMessage(`{"location":"Florence"}`)}),
					toolTurn(result("call_1", "18°C")),
					assistant(text("18°C.")),
					user(text("Thanks")),
				},
				Tools: []sdk.ToolSpec{weatherTool},
			},
		},
		{
			name:   "reasoning-field",
			config: `{"model":"gpt-oss:20b","reasoning_field":"reasoning"}`,
			req:    sdk.Request{Messages: thinkingTurn, Tools: []sdk.ToolSpec{weatherTool}},
		},
		{
			name:   "images",
			config: `{"model":"gpt-4o"}`,
			req: sdk.Request{
				Messages: []sdk.Message{
					user(text("What is in these?"), sdk.Image{MediaType: "image/png", Data: png}, sdk.Image{URL: "https://example.com/cat.jpg"}),
					assistant(sdk.ToolCall{ID: "call_s", Name: "screenshot", Input: json.RawMessage(`{}`)}),
					// The tool result carries an image: the tool message keeps
					// the text, the image follows in a user message.
					toolTurn(sdk.ToolResult{CallID: "call_s", Content: []sdk.Part{text("captured"), sdk.Image{MediaType: "image/png", Data: png}}}),
				},
				Tools: []sdk.ToolSpec{{Name: "screenshot"}},
			},
		},
		{
			name:   "tool-result-document",
			config: `{"model":"gpt-4o"}`,
			req: sdk.Request{
				Messages: []sdk.Message{
					user(text("Read the report")),
					assistant(sdk.ToolCall{ID: "call_r", Name: "read", Input: json.RawMessage(`{}`)}),
					// A document in a tool result follows in a user message,
					// as an image does: tool messages carry text only.
					toolTurn(sdk.ToolResult{CallID: "call_r", Content: []sdk.Part{text("attached"), sdk.Document{MediaType: "application/pdf", Data: []byte("%PDF-1.7"), Title: "q3.pdf"}}}),
				},
				Tools: []sdk.ToolSpec{{Name: "read"}},
			},
		},
		{
			name:   "tool-choice-none",
			config: `{"model":"gpt-4o"}`,
			req:    sdk.Request{Messages: []sdk.Message{user(text("hi"))}, Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceNone}},
		},
		{
			name:   "tool-choice-required",
			config: `{"model":"gpt-4o"}`,
			req:    sdk.Request{Messages: []sdk.Message{user(text("hi"))}, Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceRequired}},
		},
		{
			name:   "tool-choice-named",
			config: `{"model":"gpt-4o"}`,
			req:    sdk.Request{Messages: []sdk.Message{user(text("hi"))}, Tools: []sdk.ToolSpec{weatherTool, clockTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "clock"}},
		},
		{
			name:   "tool-choice-without-tools-omitted",
			config: `{"model":"gpt-4o"}`,
			req: sdk.Request{
				Messages:   []sdk.Message{user(text("hi"))},
				ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceRequired},
				Options:    map[string]json.RawMessage{"parallel_tool_calls": json.RawMessage(`false`)},
			},
		},
		{
			name:   "max-completion-tokens-reasoning-effort",
			config: `{"model":"o4-mini","max_tokens":2048,"max_tokens_field":"max_completion_tokens","reasoning_effort":"low"}`,
			req: sdk.Request{
				Model:    "gpt-5-mini",
				Messages: []sdk.Message{user(text("Prove it."))},
				Options:  map[string]json.RawMessage{"reasoning_effort": json.RawMessage(`"high"`)},
			},
		},
		{
			name:   "options-no-usage",
			config: `{"model":"llama3.2","include_usage":false}`,
			req: sdk.Request{
				Messages: []sdk.Message{user(text("JSON please."))},
				Tools:    []sdk.ToolSpec{weatherTool},
				Options: map[string]json.RawMessage{
					"response_format":     json.RawMessage(`{"type":"json_object"}`),
					"parallel_tool_calls": json.RawMessage(`false`),
					"top_p":               json.RawMessage(`0.9`),
					"seed":                json.RawMessage(`42`),
					"thinking_budget":     json.RawMessage(`1024`), // another plugin's option: ignored
				},
			},
		},
		{
			name:   "output-json-schema-strict-sequential",
			config: `{"model":"gpt-4o"}`,
			req: sdk.Request{
				Messages:   []sdk.Message{user(text("Weather in Oslo, as JSON."))},
				Tools:      []sdk.ToolSpec{weatherTool},
				ToolChoice: sdk.ToolChoice{Sequential: true},
				Output:     &sdk.Output{Kind: sdk.OutputJSONSchema, Name: "weather", Schema: json.RawMessage(` {"type":"object","properties":{"c":{"type":"number"}},"required":["c"],"additionalProperties":false} `), Strict: true},
				// The canonical form wins over the options it replaced.
				Options: map[string]json.RawMessage{"response_format": json.RawMessage(`{"type":"text"}`), "parallel_tool_calls": json.RawMessage(`true`)},
			},
		},
		{
			name:   "output-json-object-unnamed-schema",
			config: `{"model":"gpt-4o"}`,
			req: sdk.Request{
				Messages: []sdk.Message{user(text("JSON, please."))},
				Output:   &sdk.Output{Kind: sdk.OutputJSONSchema, Schema: json.RawMessage(`{"type":"object"}`)},
			},
		},
		{
			name:   "output-json-object",
			config: `{"model":"gpt-4o"}`,
			req: sdk.Request{
				Messages: []sdk.Message{user(text("JSON, please."))},
				Output:   &sdk.Output{Kind: sdk.OutputJSON},
			},
		},
		{
			name:   "documents",
			config: `{"model":"gpt-4o"}`,
			req: sdk.Request{Messages: []sdk.Message{user(
				text("Compare these."),
				sdk.Document{MediaType: "application/pdf", Data: []byte("%PDF-1.4 x"), Title: "report.pdf"},
				sdk.Document{MediaType: "application/pdf", Data: []byte("%PDF-1.4 y")},
				sdk.Document{MediaType: "text/plain", Data: []byte("plain words"), Title: "Notes", Context: "from the meeting"},
				// A PDF's context has no field in a file part: a text part
				// before it carries it.
				sdk.Document{MediaType: "application/pdf", Data: []byte("%PDF-1.4 z"), Title: "q3.pdf", Context: "the board's copy"},
			)}},
		},
		{
			name:   "system-role-messages",
			config: `{"model":"gpt-4o"}`,
			req: sdk.Request{
				System: sdk.SystemPrompt("First."),
				Messages: []sdk.Message{
					{Role: sdk.RoleSystem, Parts: []sdk.Part{text("Second.")}},
					user(text("one"), text("two")),
				},
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
			wire, err := buildRequest(cfg, &c.req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.MarshalIndent(wire, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "request/"+c.name+".json", string(b)+"\n")
		})
	}
}

func TestBuildRequestErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		config string
		req    sdk.Request
	}{
		{"no model", `{}`, sdk.Request{Messages: []sdk.Message{user(text("hi"))}}},
		{"named tool not offered", `{"model":"m"}`, sdk.Request{
			Messages: []sdk.Message{user(text("hi"))}, Tools: []sdk.ToolSpec{weatherTool},
			ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "clock"},
		}},
		{"unknown tool choice mode", `{"model":"m"}`, sdk.Request{
			Messages: []sdk.Message{user(text("hi"))}, Tools: []sdk.ToolSpec{weatherTool},
			ToolChoice: sdk.ToolChoice{Mode: "sometimes"},
		}},
		{"unknown role", `{"model":"m"}`, sdk.Request{Messages: []sdk.Message{{Role: "narrator", Parts: []sdk.Part{text("hi")}}}}},
		{"image in assistant turn", `{"model":"m"}`, sdk.Request{Messages: []sdk.Message{assistant(sdk.Image{URL: "https://x/y.png"})}}},
		{"tool result without call id", `{"model":"m"}`, sdk.Request{Messages: []sdk.Message{toolTurn(result("", "x"))}}},
		{"tool call without id", `{"model":"m"}`, sdk.Request{Messages: []sdk.Message{assistant(sdk.ToolCall{Name: "weather"})}}},
		{"inline image without media type", `{"model":"m"}`, sdk.Request{Messages: []sdk.Message{user(sdk.Image{Data: []byte{1}})}}},
		{"image with nothing", `{"model":"m"}`, sdk.Request{Messages: []sdk.Message{user(text("see"), sdk.Image{})}}},
		{"bad option type", `{"model":"m"}`, sdk.Request{Messages: []sdk.Message{user(text("hi"))}, Options: map[string]json.RawMessage{"top_p": json.RawMessage(`"high"`)}}},
		{"output schema not an object", `{"model":"m"}`, sdk.Request{Messages: []sdk.Message{user(text("hi"))}, Output: &sdk.Output{Kind: sdk.OutputJSONSchema, Schema: json.RawMessage(`[1]`)}}},
		{"output schema name OpenAI refuses", `{"model":"m"}`, sdk.Request{Messages: []sdk.Message{user(text("hi"))}, Output: &sdk.Output{Kind: sdk.OutputJSONSchema, Name: "my schema", Schema: json.RawMessage(`{}`)}}},
		{"output of unknown kind", `{"model":"m"}`, sdk.Request{Messages: []sdk.Message{user(text("hi"))}, Output: &sdk.Output{Kind: "yaml"}}},
		{"pdf by url", `{"model":"m"}`, sdk.Request{Messages: []sdk.Message{user(text("hi"), sdk.Document{MediaType: "application/pdf", URL: "https://x/y.pdf"})}}},
		{"document of another type", `{"model":"m"}`, sdk.Request{Messages: []sdk.Message{user(text("hi"), sdk.Document{MediaType: "text/html", Data: []byte("<p>")})}}},
		{"document in assistant turn", `{"model":"m"}`, sdk.Request{Messages: []sdk.Message{assistant(sdk.Document{MediaType: "text/plain", Data: []byte("x")})}}},
		{"response_format not an object", `{"model":"m"}`, sdk.Request{Messages: []sdk.Message{user(text("hi"))}, Options: map[string]json.RawMessage{"response_format": json.RawMessage(`"json"`)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := parseConfig(sdk.Config{Values: json.RawMessage(c.config)})
			if err != nil {
				t.Fatal(err)
			}
			_, err = buildRequest(cfg, &c.req)
			if got := sdk.ClassOf(err); got != sdk.ClassPermanent {
				t.Fatalf("got %v (class %q), want a permanent error", err, got)
			}
		})
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	t.Run("defaults", func(t *testing.T) {
		got, err := parseConfig(sdk.Config{})
		if err != nil {
			t.Fatal(err)
		}
		want := config{BaseURL: "https://api.openai.com/v1", MaxTokensField: "max_tokens", ReasoningField: "none", IncludeUsage: true, API: "chat"}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(config{})); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("trailing slash trimmed", func(t *testing.T) {
		got, err := parseConfig(sdk.Config{Values: json.RawMessage(`{"base_url":"http://127.0.0.1:11434/v1/"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if got.BaseURL != "http://127.0.0.1:11434/v1" {
			t.Errorf("base_url %q", got.BaseURL)
		}
	})
	for _, bad := range []string{
		`{"base_url":"api.openai.com/v1"}`,
		`{"base_url":"ftp://example.com"}`,
		`{"base_url":"https://example.com/v1?key=x"}`,
		`{"base_url":"https://user:pass@example.com/v1"}`,
		`{"max_tokens":-1}`,
		`{"max_tokens_field":"max_output_tokens"}`,
		`{"reasoning_field":"thinking"}`,
		`{"api":"completions"}`,
		`{"headers":{"authorization":"Bearer sk-123"}}`,
		`{"headers":{"X-Api-Key":"k"}}`,
		`{"headers":{"x-goog-api-key":"k"}}`,
		`{"base_url":7}`,
	} {
		t.Run(bad, func(t *testing.T) {
			_, err := parseConfig(sdk.Config{Values: json.RawMessage(bad)})
			if sdk.ClassOf(err) != sdk.ClassPermanent {
				t.Fatalf("got %v, want a permanent config error", err)
			}
		})
	}
}
