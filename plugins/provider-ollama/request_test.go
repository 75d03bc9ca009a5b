package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

func user(parts ...sdk.Part) sdk.Message { return sdk.Message{Role: sdk.RoleUser, Parts: parts} }
func assistant(parts ...sdk.Part) sdk.Message {
	return sdk.Message{Role: sdk.RoleAssistant, Parts: parts}
}
func toolMsg(parts ...sdk.Part) sdk.Message { return sdk.Message{Role: sdk.RoleTool, Parts: parts} }
func text(s string) sdk.Text                { return sdk.Text{Text: s} }
func result(id, s string) sdk.ToolResult {
	return sdk.ToolResult{CallID: id, Content: []sdk.Part{text(s)}}
}

var weatherTool = sdk.ToolSpec{
	Name:        "weather",
	Description: "Get the weather for a city",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`),
}

var timeTool = sdk.ToolSpec{Name: "time", InputSchema: json.RawMessage(`{"type": "object"}`)}

// pngBytes is the start of a PNG file.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

func temp(f float64) *float64 { return &f }

// mustSettings parses plugin values as Configure would.
func mustSettings(t *testing.T, values string) settings {
	t.Helper()
	s, err := parseConfig(sdk.Config{Values: json.RawMessage(values)})
	if err != nil {
		t.Fatalf("parseConfig(%s): %v", values, err)
	}
	return s
}

// TestBuildRequest checks the wire body of each canonical request against
// testdata/golden/request/<name>.json.
func TestBuildRequest(t *testing.T) {
	t.Parallel()
	const base = `{"model":"qwen3:4b"}`
	tests := map[string]struct {
		values string
		req    sdk.Request
	}{
		"text-defaults": {values: base, req: sdk.Request{
			Messages: []sdk.Message{user(text("Say hi in Portuguese"))},
		}},
		"system-temperature-stop-max-tokens-model": {values: base, req: sdk.Request{
			Model:         "gemma3:1b",
			System:        sdk.SystemPrompt("You are terse."),
			Messages:      []sdk.Message{{Role: sdk.RoleSystem, Parts: []sdk.Part{text("Answer in Italian.")}}, user(text("Count to five"))},
			MaxTokens:     50,
			Temperature:   temp(0),
			StopSequences: []string{"4", "\n\n"},
		}},
		"config-think-keep-alive-options-max-tokens": {
			values: `{"model":"gpt-oss:20b","think":"high","keep_alive":"30m","max_tokens":2048,"options":{"num_ctx":"16384","temperature":"0.6","use_mmap":"false"}}`,
			req:    sdk.Request{Messages: []sdk.Message{user(text("hi"))}},
		},
		"request-fields-override-config": {
			values: `{"model":"qwen3:4b","think":"true","keep_alive":"-1","max_tokens":2048,"options":{"temperature":"0.6","num_ctx":"8192"}}`,
			req: sdk.Request{
				Messages:    []sdk.Message{user(text("hi"))},
				MaxTokens:   100,
				Temperature: temp(0.2),
				Options: map[string]json.RawMessage{
					"think":            json.RawMessage(`false`),
					"keep_alive":       json.RawMessage(`"5m"`),
					"options":          json.RawMessage(`{"num_ctx":4096,"seed":42}`),
					"reasoning_effort": json.RawMessage(`"high"`), // another provider's option: ignored
				},
			},
		},
		"think-level-option": {values: base, req: sdk.Request{
			Messages: []sdk.Message{user(text("hi"))},
			Options:  map[string]json.RawMessage{"think": json.RawMessage(`"low"`), "keep_alive": json.RawMessage(`0`)},
		}},
		"multi-turn-tool-call-and-result": {values: base, req: sdk.Request{
			System: sdk.SystemPrompt("You are a helpful assistant"),
			Tools:  []sdk.ToolSpec{weatherTool},
			Messages: []sdk.Message{
				user(text("What's the weather in Florence?")),
				assistant(
					sdk.Reasoning{Text: "The user wants the weather.", Signature: "sig-from-anthropic"},
					text("Let me check."),
					sdk.ToolCall{ID: "call_1", Name: "weather", Input: json.RawMessage(`{ "location": "Florence" }`)},
				),
				toolMsg(result("call_1", "24°C, sunny")),
				assistant(text("It is 24°C and sunny.")),
				user(text("And tomorrow?")),
			},
		}},
		"parallel-tool-calls-results-named": {values: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{weatherTool, timeTool},
			Messages: []sdk.Message{
				user(text("Weather and time in Rome?")),
				assistant(
					sdk.ToolCall{ID: "a", Name: "weather", Input: json.RawMessage(`{"location":"Rome"}`)},
					sdk.ToolCall{ID: "b", Name: "time"},
				),
				// The first result names its tool; the second is named from
				// the call it answers; the third is an error.
				toolMsg(sdk.ToolResult{CallID: "a", Name: "weather", Content: []sdk.Part{text("20°C")}}),
				toolMsg(result("b", "13:05"), sdk.ToolResult{CallID: "b", Content: []sdk.Part{text("unknown timezone")}, IsError: true}),
				user(result("a", "late result in a user turn"), text("Be brief.")),
			},
		}},
		"images-base64-and-in-tool-result": {values: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{{Name: "screenshot"}},
			Messages: []sdk.Message{
				user(text("What is in these?"), sdk.Image{MediaType: "image/jpeg", Data: []byte{0xff, 0xd8, 0xff, 0xe0}}, sdk.Image{Data: pngBytes}),
				assistant(sdk.ToolCall{ID: "s", Name: "screenshot", Input: json.RawMessage(`{}`)}),
				toolMsg(sdk.ToolResult{CallID: "s", Content: []sdk.Part{text("the screen:"), sdk.Image{MediaType: "image/png", Data: pngBytes}}}),
			},
		}},
		"empty-system-dropped": {values: base, req: sdk.Request{
			Messages: []sdk.Message{{Role: sdk.RoleSystem, Parts: []sdk.Part{text("")}}, user(text("hello"))},
		}},
		"tool-choice-none-sends-no-tools": {values: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceNone},
			Messages: []sdk.Message{user(text("hi"))},
		}},
		"tool-choice-required-sends-all": {values: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{weatherTool, timeTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceRequired},
			Messages: []sdk.Message{user(text("hi"))},
		}},
		"output-json-format": {values: base, req: sdk.Request{
			Messages: []sdk.Message{user(text("How many feet are in a nautical mile?"))},
			Output:   &sdk.Output{Kind: sdk.OutputJSON},
		}},
		"output-json-schema-format-with-tools-sequential": {values: base, req: sdk.Request{
			Messages: []sdk.Message{user(text("Weather in Rome as JSON"))},
			Tools:    []sdk.ToolSpec{weatherTool},
			// Sequential renders nothing: /api/chat has no such switch.
			ToolChoice: sdk.ToolChoice{Sequential: true},
			Output: &sdk.Output{Kind: sdk.OutputJSONSchema, Name: "forecast", Strict: true, Schema: json.RawMessage(` {"type":"object","properties":{"city":{"type":"string"},"celsius":{"type":"number"}},"required":["city","celsius"]}
`)},
		}},
		"tool-choice-named-sends-one": {values: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{weatherTool, timeTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "time"},
			Messages: []sdk.Message{user(text("hi"))},
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w, err := buildRequest(&tc.req, mustSettings(t, tc.values))
			if err != nil {
				t.Fatalf("buildRequest: %v", err)
			}
			body, err := json.Marshal(w)
			if err != nil {
				t.Fatal(err)
			}
			sdktest.GoldenJSON(t, golden("request/"+name), json.RawMessage(body), *update)
		})
	}
}

// TestBuildRequestMatchesRecorded: the canonical request a recorded
// langchaingo call stands for translates to the body that call sent
// (model, messages, options and format; langchaingo sends "format": ""
// for none, this plugin omits it).
func TestBuildRequestMatchesRecorded(t *testing.T) {
	t.Parallel()
	tests := map[string]sdk.Request{
		"api-chat-stream.request.json": {
			Model:       "gemma3:1b",
			Messages:    []sdk.Message{user(text("Count from 1 to 5"))},
			MaxTokens:   50,
			Temperature: temp(0),
		},
		"api-chat-format-json-stream.request.json": {
			Model:       "gemma3:1b",
			Messages:    []sdk.Message{user(text("How many feet are in a nautical mile? Respond with JSON containing the answer."))},
			Temperature: temp(0),
			Output:      &sdk.Output{Kind: sdk.OutputJSON},
		},
	}
	type subset struct {
		Model    string                     `json:"model"`
		Messages []wireMessage              `json:"messages"`
		Options  map[string]json.RawMessage `json:"options"`
		Format   json.RawMessage            `json:"format"`
	}
	for file, req := range tests {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(filepath.Join(sharedFixtures, file))
			if err != nil {
				t.Fatalf("shared fixture missing (committed under plugins/testdata/wire): %v", err)
			}
			var want subset
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			if string(want.Format) == `""` {
				want.Format = nil
			}
			w, err := buildRequest(&req, mustSettings(t, `{}`))
			if err != nil {
				t.Fatal(err)
			}
			got := subset{Model: w.Model, Messages: w.Messages, Options: w.Options, Format: w.Format}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-recorded +built):\n%s", diff)
			}
		})
	}
}

// TestBuildRequestRefuses checks requests that cannot be put on the wire:
// each fails as permanent, naming the problem, before any network call.
func TestBuildRequestRefuses(t *testing.T) {
	t.Parallel()
	hi := []sdk.Message{user(text("hi"))}
	opt := func(k, v string) map[string]json.RawMessage { return map[string]json.RawMessage{k: json.RawMessage(v)} }
	tests := map[string]struct {
		values string
		req    sdk.Request
		want   string
	}{
		"no model":                    {values: `{}`, req: sdk.Request{Messages: hi}, want: "no model"},
		"named tool without name":     {req: sdk.Request{Messages: hi, Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceTool}}, want: "needs a tool name"},
		"named tool not offered":      {req: sdk.Request{Messages: hi, Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "time"}}, want: "not among the request's tools"},
		"required without tools":      {req: sdk.Request{Messages: hi, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceRequired}}, want: "needs at least one tool"},
		"unknown tool choice":         {req: sdk.Request{Messages: hi, Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: "sometimes"}}, want: "unknown tool choice"},
		"invalid tool schema":         {req: sdk.Request{Messages: hi, Tools: []sdk.ToolSpec{{Name: "x", InputSchema: json.RawMessage(`{"type":`)}}}, want: "input schema"},
		"tool input not an object":    {req: sdk.Request{Messages: []sdk.Message{user(text("hi")), assistant(sdk.ToolCall{ID: "t", Name: "x", Input: json.RawMessage(`[1,2]`)})}}, want: "message 1: tool call \"t\": input is not a JSON object"},
		"tool call from the user":     {req: sdk.Request{Messages: []sdk.Message{user(sdk.ToolCall{ID: "t", Name: "x"})}}, want: "message 0: a tool call may only appear"},
		"tool result from the model":  {req: sdk.Request{Messages: []sdk.Message{assistant(result("t", "r"))}}, want: "a tool result may only appear"},
		"image from the model":        {req: sdk.Request{Messages: []sdk.Message{assistant(sdk.Image{Data: pngBytes})}}, want: "an image may only appear"},
		"image by url only":           {req: sdk.Request{Messages: []sdk.Message{user(sdk.Image{URL: "https://example.org/cat.png"})}}, want: "only by URL"},
		"image without data":          {req: sdk.Request{Messages: []sdk.Message{user(sdk.Image{MediaType: "image/png"})}}, want: "needs data"},
		"reasoning from the user":     {req: sdk.Request{Messages: []sdk.Message{user(sdk.Reasoning{Text: "x"})}}, want: "reasoning may only appear"},
		"unknown role":                {req: sdk.Request{Messages: []sdk.Message{{Role: "narrator", Parts: []sdk.Part{text("x")}}}}, want: "unknown role"},
		"think option not a level":    {req: sdk.Request{Messages: hi, Options: opt("think", `"max"`)}, want: "option think"},
		"keep_alive option garbage":   {req: sdk.Request{Messages: hi, Options: opt("keep_alive", `"soon"`)}, want: "option keep_alive"},
		"options option not object":   {req: sdk.Request{Messages: hi, Options: opt("options", `[1]`)}, want: "want a JSON object"},
		"options option string value": {req: sdk.Request{Messages: hi, Options: opt("options", `{"num_ctx":"big"}`)}, want: "num_ctx"},
		"output schema not an object": {req: sdk.Request{Messages: hi, Output: &sdk.Output{Kind: sdk.OutputJSONSchema, Name: "forecast", Schema: json.RawMessage(`[1]`)}}, want: `structured output "forecast": the schema must be a JSON object`},
		"output schema missing":       {req: sdk.Request{Messages: hi, Output: &sdk.Output{Kind: sdk.OutputJSONSchema}}, want: "structured output: the schema must be a JSON object"},
		"output schema invalid json":  {req: sdk.Request{Messages: hi, Output: &sdk.Output{Kind: sdk.OutputJSONSchema, Schema: json.RawMessage(`{"type":`)}}, want: "the schema must be a JSON object"},
		"output of unknown kind":      {req: sdk.Request{Messages: hi, Output: &sdk.Output{Kind: "yaml"}}, want: `unknown kind "yaml"`},
		"document pdf":                {req: sdk.Request{Messages: []sdk.Message{user(text("Summarise"), sdk.Document{MediaType: "application/pdf", Data: []byte("%PDF-1.7"), Title: "Q3 report"})}}, want: `message 0: a document (application/pdf, "Q3 report") cannot be sent: Ollama's /api/chat takes no document input`},
		"document by url":             {req: sdk.Request{Messages: []sdk.Message{user(sdk.Document{MediaType: "application/pdf", URL: "https://example.org/a.pdf"})}}, want: "a document (application/pdf) cannot be sent"},
		"document in a tool result":   {req: sdk.Request{Messages: []sdk.Message{toolMsg(sdk.ToolResult{CallID: "r", Name: "read", Content: []sdk.Part{sdk.Document{MediaType: "text/plain", Data: []byte("hi")}}})}}, want: `tool result "r": a document (text/plain) cannot be sent`},
		"options option num_predict":  {req: sdk.Request{Messages: hi, Options: opt("options", `{"num_predict":10}`)}, want: "max_tokens"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			values := tc.values
			if values == "" {
				values = `{"model":"m"}`
			}
			_, err := buildRequest(&tc.req, mustSettings(t, values))
			if sdk.ClassOf(err) != sdk.ClassPermanent {
				t.Fatalf("error %v: want a permanent error", err)
			}
			// What /api/chat has no place for is the client's 400, not a 502.
			var e *sdk.Error
			if strings.HasPrefix(name, "document") && (!errors.As(err, &e) || e.Code != sdk.CodeUnsupported || e.Status != 400) {
				t.Errorf("error %#v: want sdk.Unsupportedf's code and status", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}
