package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

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

// pngBytes is the start of a PNG file, enough for content sniffing.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00")

func temp(f float64) *float64 { return &f }

// TestBuildRequest checks the wire body of each canonical request against
// testdata/golden/request/<name>.json.
func TestBuildRequest(t *testing.T) {
	t.Parallel()
	base := config{Model: "claude-sonnet-4-5", MaxTokens: 4096}
	tests := map[string]struct {
		cfg config
		req sdk.Request
	}{
		"text-defaults": {cfg: base, req: sdk.Request{
			Messages: []sdk.Message{user(text("Say hi in Portuguese"))},
		}},
		"system-temperature-stop-max-tokens-model": {cfg: base, req: sdk.Request{
			Model:         "claude-haiku-4-5",
			System:        sdk.SystemPrompt("You are terse."),
			Messages:      []sdk.Message{{Role: sdk.RoleSystem, Parts: []sdk.Part{text("Answer in Italian.")}}, user(text("Count to five"))},
			MaxTokens:     50,
			Temperature:   temp(0),
			StopSequences: []string{"4", "\n\n"},
		}},
		"multi-turn-tool-call-and-result": {cfg: base, req: sdk.Request{
			System: sdk.SystemPrompt("You are a helpful assistant"),
			Tools:  []sdk.ToolSpec{weatherTool},
			Messages: []sdk.Message{
				user(text("What's the weather in Florence?")),
				assistant(text("Let me check."), sdk.ToolCall{ID: "toolu_01", Name: "weather", Input: json.RawMessage(`{ "location": "Florence" }`)}),
				toolMsg(result("toolu_01", "24°C, sunny")),
				assistant(text("It is 24°C and sunny.")),
				user(text("And tomorrow?")),
			},
		}},
		"parallel-tool-calls-results-merged": {cfg: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{weatherTool, timeTool},
			Messages: []sdk.Message{
				user(text("Weather and time in Rome and Milan?")),
				assistant(
					sdk.ToolCall{ID: "toolu_a", Name: "weather", Input: json.RawMessage(`{"location":"Rome"}`)},
					sdk.ToolCall{ID: "toolu_b", Name: "weather", Input: json.RawMessage(`{"location":"Milan"}`)},
					sdk.ToolCall{ID: "toolu_c", Name: "time"},
				),
				// One tool message per result, then a user remark: one user
				// turn on the wire, results first.
				toolMsg(result("toolu_a", "20°C")),
				user(text("Be brief.")),
				toolMsg(result("toolu_b", "18°C")),
				toolMsg(sdk.ToolResult{CallID: "toolu_c", Content: []sdk.Part{text("unknown timezone")}, IsError: true}),
			},
		}},
		"thinking-signatures-passed-back": {cfg: config{Model: "claude-sonnet-4-5", MaxTokens: 8000, ThinkingBudget: 4000}, req: sdk.Request{
			Tools: []sdk.ToolSpec{weatherTool},
			Messages: []sdk.Message{
				user(text("Weather in Florence?")),
				assistant(
					sdk.Reasoning{Text: "The user wants the weather.", Signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"},
					sdk.Reasoning{Redacted: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"},
					sdk.Reasoning{Text: "unsigned reasoning from another provider is dropped"},
					sdk.ToolCall{ID: "toolu_01", Name: "weather", Input: json.RawMessage(`{"location":"Florence"}`)},
				),
				toolMsg(result("toolu_01", "24°C")),
			},
		}},
		"thinking-budget-option-overrides-config": {cfg: config{Model: "m", MaxTokens: 8000, ThinkingBudget: 4000}, req: sdk.Request{
			Messages: []sdk.Message{user(text("hi"))},
			Options:  map[string]json.RawMessage{"thinking_budget": json.RawMessage("2048"), "reasoning_effort": json.RawMessage(`"high"`)},
		}},
		"thinking-option-turns-off": {cfg: config{Model: "m", MaxTokens: 8000, ThinkingBudget: 4000}, req: sdk.Request{
			Messages: []sdk.Message{user(text("hi"))},
			Options:  map[string]json.RawMessage{"thinking_budget": json.RawMessage("0")},
		}},
		"images-base64-sniffed-url-and-in-tool-result": {cfg: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{{Name: "screenshot"}},
			Messages: []sdk.Message{
				user(text("What is in these?"), sdk.Image{MediaType: "image/jpeg", Data: []byte{0xff, 0xd8, 0xff, 0xe0}}, sdk.Image{Data: pngBytes}, sdk.Image{URL: "https://example.org/cat.png"}),
				assistant(sdk.ToolCall{ID: "toolu_s", Name: "screenshot", Input: json.RawMessage(`{}`)}),
				toolMsg(sdk.ToolResult{CallID: "toolu_s", Content: []sdk.Part{text("the screen:"), sdk.Image{MediaType: "image/png", Data: pngBytes}}}),
			},
		}},
		"empty-text-parts-and-empty-turns-dropped": {cfg: base, req: sdk.Request{
			Messages: []sdk.Message{user(text("hello"), text("")), assistant(text("")), user(text("anyone?"))},
		}},
		"tool-choice-auto": {cfg: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceAuto},
			Messages: []sdk.Message{user(text("hi"))},
		}},
		"tool-choice-none": {cfg: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceNone},
			Messages: []sdk.Message{user(text("hi"))},
		}},
		"tool-choice-none-without-tools": {cfg: base, req: sdk.Request{
			ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceNone},
			Messages:   []sdk.Message{user(text("hi"))},
		}},
		"tool-choice-required": {cfg: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{weatherTool, timeTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceRequired},
			Messages: []sdk.Message{user(text("hi"))},
		}},
		"cache-breakpoints-system-messages-tools": {cfg: base, req: sdk.Request{
			System: []sdk.Text{{Text: "You are a librarian.", Cache: sdk.Cache1h}, {Text: "Today is Tuesday."}},
			Tools:  []sdk.ToolSpec{timeTool, {Name: weatherTool.Name, Description: weatherTool.Description, InputSchema: weatherTool.InputSchema, Cache: sdk.CacheDefault}},
			Messages: []sdk.Message{
				{Role: sdk.RoleSystem, Parts: []sdk.Part{text("Answer briefly.")}},
				user(sdk.Text{Text: "A long document.", Cache: sdk.Cache5m}, text("What is it about?")),
				assistant(sdk.ToolCall{ID: "toolu_1", Name: "weather", Input: json.RawMessage(`{"location":"Rome"}`)}),
				toolMsg(sdk.ToolResult{CallID: "toolu_1", Content: []sdk.Part{text("20°C")}, Cache: sdk.Cache5m}),
			},
		}},
		"cache-breakpoints-image-tool-use-result-text": {cfg: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{{Name: "screenshot"}},
			Messages: []sdk.Message{
				user(sdk.Image{MediaType: "image/png", Data: pngBytes, Cache: sdk.CacheDefault}),
				assistant(sdk.ToolCall{ID: "toolu_s", Name: "screenshot", Input: json.RawMessage(`{}`), Cache: sdk.Cache1h}),
				toolMsg(sdk.ToolResult{CallID: "toolu_s", Content: []sdk.Part{sdk.Text{Text: "the screen", Cache: sdk.Cache1h}}}),
			},
		}},
		"documents-pdf-text-url": {cfg: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{{Name: "fetch"}},
			Messages: []sdk.Message{
				user(
					sdk.Document{MediaType: "application/pdf", Data: []byte("%PDF-1.4 tiny"), Title: "Report", Context: "Q3 figures", Cache: sdk.Cache1h},
					sdk.Document{Data: []byte("%PDF-1.7 sniffed")},
					sdk.Document{MediaType: "text/plain; charset=utf-8", Data: []byte("Plain notes, ünïcode.")},
					sdk.Document{URL: "https://example.org/paper.pdf", Title: "Paper"},
					text("Summarise them."),
				),
				assistant(sdk.ToolCall{ID: "toolu_f", Name: "fetch", Input: json.RawMessage(`{}`)}),
				toolMsg(sdk.ToolResult{CallID: "toolu_f", Content: []sdk.Part{sdk.Document{MediaType: "text/plain", Data: []byte("fetched text")}}}),
			},
		}},
		"output-json-schema-with-tools": {cfg: base, req: sdk.Request{
			Tools:    []sdk.ToolSpec{weatherTool},
			Output:   &sdk.Output{Kind: sdk.OutputJSONSchema, Name: "forecast", Strict: true, Schema: json.RawMessage(` {"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)},
			Messages: []sdk.Message{user(text("Forecast for Rome?"))},
		}},
		"output-json-object-instruction": {cfg: base, req: sdk.Request{
			System:   []sdk.Text{{Text: "You are terse.", Cache: sdk.CacheDefault}},
			Output:   &sdk.Output{Kind: sdk.OutputJSON},
			Messages: []sdk.Message{user(text("Give me a JSON object about Rome."))},
		}},
		"tool-choice-sequential-auto": {cfg: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Sequential: true},
			Messages: []sdk.Message{user(text("hi"))},
		}},
		"tool-choice-sequential-required": {cfg: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceRequired, Sequential: true},
			Messages: []sdk.Message{user(text("hi"))},
		}},
		"tool-choice-sequential-named": {cfg: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{weatherTool, timeTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "time", Sequential: true},
			Messages: []sdk.Message{user(text("hi"))},
		}},
		"tool-choice-sequential-none": {cfg: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceNone, Sequential: true},
			Messages: []sdk.Message{user(text("hi"))},
		}},
		"tool-choice-sequential-without-tools": {cfg: base, req: sdk.Request{
			ToolChoice: sdk.ToolChoice{Sequential: true},
			Messages:   []sdk.Message{user(text("hi"))},
		}},
		"tool-choice-named": {cfg: base, req: sdk.Request{
			Tools: []sdk.ToolSpec{weatherTool, timeTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "time"},
			Messages: []sdk.Message{user(text("hi"))},
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w, err := buildRequest(&tc.req, tc.cfg)
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

// TestBuildRequestRefuses checks requests that cannot be put on the wire:
// each fails as permanent, naming the problem, before any network call.
func TestBuildRequestRefuses(t *testing.T) {
	t.Parallel()
	base := config{Model: "m", MaxTokens: 1}
	hi := []sdk.Message{user(text("hi"))}
	tests := map[string]struct {
		cfg  config
		req  sdk.Request
		want string
	}{
		"no model":                {cfg: config{MaxTokens: 1}, req: sdk.Request{Messages: hi}, want: "no model"},
		"named tool without name": {cfg: base, req: sdk.Request{Messages: hi, Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceTool}}, want: "needs a tool name"},
		"required without tools":  {cfg: base, req: sdk.Request{Messages: hi, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceRequired}}, want: "needs at least one tool"},
		"unknown tool choice":     {cfg: base, req: sdk.Request{Messages: hi, Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: "sometimes"}}, want: "unknown tool choice"},
		"invalid tool schema":     {cfg: base, req: sdk.Request{Messages: hi, Tools: []sdk.ToolSpec{{Name: "x", InputSchema: json.RawMessage(`{"type":`)}}}, want: "input schema"},
		"tool input not an object": {cfg: base, req: sdk.Request{Messages: []sdk.Message{
			user(text("hi")), assistant(sdk.ToolCall{ID: "t", Name: "x", Input: json.RawMessage(`[1,2]`)}),
		}}, want: "message 1: tool call \"t\": input is not a JSON object"},
		"tool input malformed": {cfg: base, req: sdk.Request{Messages: []sdk.Message{
			user(text("hi")), assistant(sdk.ToolCall{ID: "t", Name: "x", Input: json.RawMessage(`{"a":`)}),
		}}, want: "input is not a JSON object"},
		"tool call from the user":    {cfg: base, req: sdk.Request{Messages: []sdk.Message{user(sdk.ToolCall{ID: "t", Name: "x"})}}, want: "message 0: a tool call may only appear"},
		"tool result from the model": {cfg: base, req: sdk.Request{Messages: []sdk.Message{assistant(result("t", "r"))}}, want: "a tool result may only appear"},
		"image from the model":       {cfg: base, req: sdk.Request{Messages: []sdk.Message{assistant(sdk.Image{URL: "https://example.org/x.png"})}}, want: "an image may only appear"},
		"image without data or url":  {cfg: base, req: sdk.Request{Messages: []sdk.Message{user(sdk.Image{MediaType: "image/png"})}}, want: "needs data or a URL"},
		"image that is not an image": {cfg: base, req: sdk.Request{Messages: []sdk.Message{user(sdk.Image{Data: []byte("plain text")})}}, want: "not an image type"},
		"unknown role":               {cfg: base, req: sdk.Request{Messages: []sdk.Message{{Role: "narrator", Parts: []sdk.Part{text("x")}}}}, want: "unknown role"},
		"five cache breakpoints": {cfg: base, req: sdk.Request{
			System:   []sdk.Text{{Text: "a", Cache: sdk.CacheDefault}, {Text: "b", Cache: sdk.Cache1h}},
			Tools:    []sdk.ToolSpec{{Name: "t", Cache: sdk.Cache5m}},
			Messages: []sdk.Message{user(sdk.Text{Text: "c", Cache: sdk.Cache5m}), assistant(text("d")), toolMsg(sdk.ToolResult{CallID: "x", Content: []sdk.Part{sdk.Text{Text: "e", Cache: sdk.Cache5m}}})},
		}, want: "5 cache breakpoints in one request; the Messages API allows at most 4"},
		"unknown cache breakpoint":     {cfg: base, req: sdk.Request{Messages: []sdk.Message{user(sdk.Text{Text: "x", Cache: "forever"})}}, want: `unknown cache breakpoint "forever"`},
		"breakpoint on empty text":     {cfg: base, req: sdk.Request{System: []sdk.Text{{Cache: sdk.Cache5m}}, Messages: hi}, want: "system part 0: a cache breakpoint on an empty text part"},
		"image in a system message":    {cfg: base, req: sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleSystem, Parts: []sdk.Part{sdk.Image{URL: "https://example.org/x.png"}}}, user(text("hi"))}}, want: "a system message may hold only text"},
		"document without data or url": {cfg: base, req: sdk.Request{Messages: []sdk.Message{user(sdk.Document{Title: "x"})}}, want: "a document needs data or a URL"},
		"document of another type":     {cfg: base, req: sdk.Request{Messages: []sdk.Message{user(sdk.Document{MediaType: "application/msword", Data: []byte("doc")})}}, want: `document media type "application/msword"`},
		"text document by url":         {cfg: base, req: sdk.Request{Messages: []sdk.Message{user(sdk.Document{MediaType: "text/plain", URL: "https://example.org/a.txt"})}}, want: "a document by URL must be a PDF"},
		"text document not utf-8":      {cfg: base, req: sdk.Request{Messages: []sdk.Message{user(sdk.Document{MediaType: "text/plain", Data: []byte{0xff, 0xfe}})}}, want: "must be UTF-8"},
		"document from the model":      {cfg: base, req: sdk.Request{Messages: []sdk.Message{assistant(sdk.Document{URL: "https://example.org/a.pdf"})}}, want: "a document may only appear"},
		"output schema not an object":  {cfg: base, req: sdk.Request{Messages: hi, Output: &sdk.Output{Kind: sdk.OutputJSONSchema, Schema: json.RawMessage(`[1]`)}}, want: "the schema must be a JSON object"},
		"output schema missing":        {cfg: base, req: sdk.Request{Messages: hi, Output: &sdk.Output{Kind: sdk.OutputJSONSchema}}, want: "the schema must be a JSON object"},
		"output of unknown kind":       {cfg: base, req: sdk.Request{Messages: hi, Output: &sdk.Output{Kind: "yaml"}}, want: `unknown kind "yaml"`},
		"bad thinking option":          {cfg: base, req: sdk.Request{Messages: hi, Options: map[string]json.RawMessage{"thinking_budget": json.RawMessage(`"lots"`)}}, want: "thinking_budget"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := buildRequest(&tc.req, tc.cfg)
			if sdk.ClassOf(err) != sdk.ClassPermanent {
				t.Fatalf("error %v: want a permanent error", err)
			}
			var e *sdk.Error
			if name == "five cache breakpoints" && (!errors.As(err, &e) || e.Code != sdk.CodeUnsupported || e.Status != 400) {
				t.Errorf("error %#v: more breakpoints than the API takes is the client's 400 (sdk.Unsupportedf)", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}
