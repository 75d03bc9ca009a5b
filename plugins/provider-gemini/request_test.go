package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

func ptr[T any](v T) *T { return &v }

func user(text string) sdk.Message {
	return sdk.Message{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: text}}}
}

var weatherTool = sdk.ToolSpec{
	Name:        "weather",
	Description: "Get the weather",
	InputSchema: json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"location":{"type":"string","format":"city"},"units":{"anyOf":[{"const":"c"},{"const":"f"}]}},"required":["location"],"additionalProperties":false}`),
}

// TestBuildRequest compares request translations with goldens in
// testdata/golden/request (rewritten under -update; review by eye).
func TestBuildRequest(t *testing.T) {
	t.Parallel()
	base := config{BaseURL: defaultBaseURL, Model: testModel}
	tests := []struct {
		name string
		cfg  config
		req  *sdk.Request
	}{
		{
			name: "system-and-generation-config",
			cfg:  config{BaseURL: defaultBaseURL, MaxTokens: 1024},
			req: &sdk.Request{
				System:        sdk.SystemPrompt("You are terse."),
				Messages:      []sdk.Message{{Role: sdk.RoleSystem, Parts: []sdk.Part{sdk.Text{Text: "Answer in French."}}}, user("Hi <there>"), user("and again")},
				Temperature:   ptr(0.2),
				StopSequences: []string{"END"},
			},
		},
		{
			name: "request-max-tokens-wins",
			cfg:  config{BaseURL: defaultBaseURL, MaxTokens: 1024},
			req:  &sdk.Request{Messages: []sdk.Message{user("Hi")}, MaxTokens: 50},
		},
		{
			name: "tools-auto-schema-as-json-schema",
			cfg:  base,
			req: &sdk.Request{
				Messages: []sdk.Message{user("Weather in Rome?")},
				Tools:    []sdk.ToolSpec{weatherTool, {Name: "now", Description: "Current time"}},
			},
		},
		{
			name: "tool-choice-required",
			cfg:  base,
			req:  &sdk.Request{Messages: []sdk.Message{user("x")}, Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceRequired}},
		},
		{
			name: "tool-choice-named",
			cfg:  base,
			req:  &sdk.Request{Messages: []sdk.Message{user("x")}, Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "weather"}},
		},
		{
			name: "tool-choice-none",
			cfg:  base,
			req:  &sdk.Request{Messages: []sdk.Message{user("x")}, Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceNone}},
		},
		{
			name: "tool-choice-without-tools-omitted",
			cfg:  base,
			req:  &sdk.Request{Messages: []sdk.Message{user("x")}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceRequired}},
		},
		{
			// The session store orders reasoning first, then text, then
			// calls: the signature still lands on the first call.
			name: "tool-round-trip-signature-on-first-call",
			cfg:  base,
			req: &sdk.Request{
				Messages: []sdk.Message{
					user("Weather in Rome and Paris?"),
					{Role: sdk.RoleAssistant, Parts: []sdk.Part{
						sdk.Reasoning{Text: "Planning the lookups.", Signature: "c2lnLWNhbGwtMQ=="},
						sdk.Text{Text: "Checking both."},
						sdk.ToolCall{ID: "call_a", Name: "weather", Input: json.RawMessage(`{"location":"Rome"}`)},
						sdk.ToolCall{ID: "call_b", Name: "weather", Input: json.RawMessage(``)},
					}},
					{Role: sdk.RoleTool, Parts: []sdk.Part{sdk.ToolResult{CallID: "call_a", Name: "weather", Content: []sdk.Part{sdk.Text{Text: "21C, sunny"}}}}},
					{Role: sdk.RoleTool, Parts: []sdk.Part{sdk.ToolResult{CallID: "call_b", IsError: true, Content: []sdk.Part{sdk.Text{Text: "station offline"}}}}},
					user("Thanks. And tomorrow?"),
				},
				Tools: []sdk.ToolSpec{weatherTool},
			},
		},
		{
			// As the front door records it: the signature event came just
			// before its call, after the text.
			name: "signature-before-call-in-stream-order",
			cfg:  base,
			req: &sdk.Request{
				Messages: []sdk.Message{
					user("Add and multiply 2 and 3"),
					{Role: sdk.RoleAssistant, Parts: []sdk.Part{
						sdk.Text{Text: "Sure."},
						sdk.Reasoning{Signature: "c2lnLTE="},
						sdk.ToolCall{ID: "8hd01vsf", Name: "add", Input: json.RawMessage(`{"a":2,"b":3}`)},
						sdk.ToolCall{ID: "k0srpqrc", Name: "multiply", Input: json.RawMessage(`{"a":2,"b":3}`)},
					}},
					{Role: sdk.RoleTool, Parts: []sdk.Part{
						sdk.ToolResult{CallID: "8hd01vsf", Name: "add", Content: []sdk.Part{sdk.Text{Text: "5"}}},
						sdk.ToolResult{CallID: "k0srpqrc", Name: "multiply", Content: []sdk.Part{sdk.Text{Text: "6"}}},
					}},
				},
			},
		},
		{
			name: "signature-on-text-reply-after-text",
			cfg:  base,
			req: &sdk.Request{Messages: []sdk.Message{
				user("Say hi"),
				{Role: sdk.RoleAssistant, Parts: []sdk.Part{sdk.Text{Text: "Bonjour !"}, sdk.Reasoning{Signature: "c2lnLXRleHQtMQ=="}}},
				user("Again"),
			}},
		},
		{
			name: "signature-on-text-reply-before-text",
			cfg:  base,
			req: &sdk.Request{Messages: []sdk.Message{
				user("Say hi"),
				{Role: sdk.RoleAssistant, Parts: []sdk.Part{sdk.Reasoning{Text: "thinking", Signature: "c2lnLXRleHQtMQ=="}, sdk.Text{Text: "Bonjour !"}}},
				user("Again"),
			}},
		},
		{
			name: "signature-alone",
			cfg:  base,
			req: &sdk.Request{Messages: []sdk.Message{
				user("Think only"),
				{Role: sdk.RoleAssistant, Parts: []sdk.Part{sdk.Reasoning{Text: "hmm", Signature: "c2lnLW9ubHk="}, sdk.Reasoning{Text: "unsigned, from another provider"}}},
				user("Go on"),
			}},
		},
		{
			name: "images",
			cfg:  base,
			req: &sdk.Request{Messages: []sdk.Message{
				{Role: sdk.RoleUser, Parts: []sdk.Part{
					sdk.Text{Text: "What is this?"},
					sdk.Image{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}},
					sdk.Image{MediaType: "image/jpeg", URL: "https://generativelanguage.googleapis.com/v1beta/files/abc"},
				}},
				{Role: sdk.RoleAssistant, Parts: []sdk.Part{sdk.ToolCall{ID: "c1", Name: "snap", Input: json.RawMessage(`{}`)}}},
				{Role: sdk.RoleTool, Parts: []sdk.Part{sdk.ToolResult{CallID: "c1", Name: "snap", Content: []sdk.Part{sdk.Text{Text: "taken"}, sdk.Image{MediaType: "image/png", Data: []byte{1, 2, 3}}}}}},
			}},
		},
		{
			name: "output-json-mime-type",
			cfg:  base,
			req:  &sdk.Request{Messages: []sdk.Message{user("Three primes as JSON")}, Output: &sdk.Output{Kind: sdk.OutputJSON}},
		},
		{
			// The schema goes out as given (only $schema dropped), not
			// translated to the OpenAPI-subset responseSchema; Sequential
			// renders nothing.
			name: "output-json-schema-with-tools-sequential",
			cfg:  base,
			req: &sdk.Request{
				Messages:   []sdk.Message{user("Weather in Rome as JSON")},
				Tools:      []sdk.ToolSpec{weatherTool},
				ToolChoice: sdk.ToolChoice{Sequential: true},
				MaxTokens:  200,
				Output:     &sdk.Output{Kind: sdk.OutputJSONSchema, Name: "forecast", Strict: true, Schema: json.RawMessage(` {"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"city":{"type":"string"},"celsius":{"type":["number","null"]},"sky":{"enum":["sun","rain"]}},"required":["city","celsius","sky"],"additionalProperties":false}`)},
			},
		},
		{
			name: "documents",
			cfg:  base,
			req: &sdk.Request{Messages: []sdk.Message{
				{Role: sdk.RoleUser, Parts: []sdk.Part{
					sdk.Text{Text: "Compare these."},
					sdk.Document{MediaType: "application/pdf", Data: []byte("%PDF-1.7\n"), Title: "Q3 report", Context: "the board's copy"},
					sdk.Document{MediaType: "text/plain; charset=utf-8", Data: []byte("plain notes")},
					sdk.Document{Data: []byte("%PDF-1.4\n")},
					sdk.Document{URL: "https://generativelanguage.googleapis.com/v1beta/files/doc1", Title: "uploaded"},
				}},
				{Role: sdk.RoleAssistant, Parts: []sdk.Part{sdk.ToolCall{ID: "c1", Name: "fetch", Input: json.RawMessage(`{}`)}}},
				{Role: sdk.RoleTool, Parts: []sdk.Part{sdk.ToolResult{CallID: "c1", Name: "fetch", Content: []sdk.Part{sdk.Text{Text: "fetched"}, sdk.Document{MediaType: "application/pdf", Data: []byte("%PDF-1.5\n")}}}}},
			}},
		},
		{
			name: "thinking-from-config",
			cfg:  config{BaseURL: defaultBaseURL, ThinkingBudget: ptr(1024), IncludeThoughts: true},
			req:  &sdk.Request{Messages: []sdk.Message{user("x")}},
		},
		{
			name: "thinking-option-overrides",
			cfg:  config{BaseURL: defaultBaseURL, ThinkingBudget: ptr(1024), IncludeThoughts: true},
			req: &sdk.Request{Messages: []sdk.Message{user("x")}, Options: map[string]json.RawMessage{
				"thinking_budget": json.RawMessage(`0`), "include_thoughts": json.RawMessage(`false`), "reasoning_effort": json.RawMessage(`"high"`),
			}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wr, err := buildRequest(tc.req, tc.cfg)
			if err != nil {
				t.Fatalf("buildRequest: %v", err)
			}
			body, err := sdk.EncodeJSON(wr)
			if err != nil {
				t.Fatal(err)
			}
			sdktest.GoldenJSON(t, golden("request/"+tc.name), json.RawMessage(body), *update)
		})
	}
}

// TestBuildRequestRefuses checks requests the wire cannot carry fail
// permanent before anything is sent.
func TestBuildRequestRefuses(t *testing.T) {
	t.Parallel()
	doc := func(role sdk.Role, d sdk.Document) *sdk.Request {
		return &sdk.Request{Messages: []sdk.Message{{Role: role, Parts: []sdk.Part{d}}}}
	}
	tests := []struct {
		name string
		req  *sdk.Request
		want string // in the error, when set
	}{
		{"output schema not an object", &sdk.Request{Messages: []sdk.Message{user("x")}, Output: &sdk.Output{Kind: sdk.OutputJSONSchema, Name: "forecast", Schema: json.RawMessage(`[1]`)}}, `gemini: structured output "forecast": the schema must be a JSON object`},
		{"output schema missing", &sdk.Request{Messages: []sdk.Message{user("x")}, Output: &sdk.Output{Kind: sdk.OutputJSONSchema}}, "gemini: structured output: the schema must be a JSON object"},
		{"output schema invalid json", &sdk.Request{Messages: []sdk.Message{user("x")}, Output: &sdk.Output{Kind: sdk.OutputJSONSchema, Schema: json.RawMessage(`{"type":`)}}, "the schema must be a JSON object"},
		{"output of unknown kind", &sdk.Request{Messages: []sdk.Message{user("x")}, Output: &sdk.Output{Kind: "yaml"}}, `unknown kind "yaml"`},
		{"document on a model turn", doc(sdk.RoleAssistant, sdk.Document{MediaType: "application/pdf", Data: []byte("%PDF")}), "message 0: a document on a model turn"},
		{"document of another type", doc(sdk.RoleUser, sdk.Document{MediaType: "application/msword", Data: []byte{1}}), `document media type "application/msword"`},
		{"document by URL not a PDF", doc(sdk.RoleUser, sdk.Document{MediaType: "text/plain", URL: "https://example.org/a.txt"}), "a document by URL must be a PDF"},
		{"document without data or URL", doc(sdk.RoleUser, sdk.Document{MediaType: "application/pdf"}), "a document needs data or a URL"},
		{"document in a tool result of another type", &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleTool, Parts: []sdk.Part{sdk.ToolResult{CallID: "c1", Name: "fetch", Content: []sdk.Part{sdk.Document{MediaType: "image/gif", Data: []byte("GIF89a")}}}}}}}, `tool result "c1": document media type "image/gif"`},
		{"unknown role", &sdk.Request{Messages: []sdk.Message{{Role: "narrator", Parts: []sdk.Part{sdk.Text{Text: "x"}}}}}, ""},
		{"tool call on a user turn", &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.ToolCall{Name: "x"}}}}}, ""},
		{"tool result on an assistant turn", &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleAssistant, Parts: []sdk.Part{sdk.ToolResult{CallID: "a", Name: "x"}}}}}, ""},
		{"tool result with no name and no call", &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleTool, Parts: []sdk.Part{sdk.ToolResult{CallID: "nowhere"}}}}}, ""},
		{"call input not an object", &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleAssistant, Parts: []sdk.Part{sdk.ToolCall{ID: "a", Name: "x", Input: json.RawMessage(`[1]`)}}}}}, ""},
		{"inline image without media type", &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Image{Data: []byte{1}}}}}}, ""},
		{"schema not an object", &sdk.Request{Messages: []sdk.Message{user("x")}, Tools: []sdk.ToolSpec{{Name: "x", InputSchema: json.RawMessage(`"string"`)}}}, ""},
		{"tool without a name", &sdk.Request{Messages: []sdk.Message{user("x")}, Tools: []sdk.ToolSpec{{Description: "x"}}}, ""},
		{"tool choice names an unknown tool", &sdk.Request{Messages: []sdk.Message{user("x")}, Tools: []sdk.ToolSpec{weatherTool}, ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "nope"}}, ""},
		{"more stop sequences than the API takes", &sdk.Request{Messages: []sdk.Message{user("x")}, StopSequences: []string{"a", "b", "c", "d", "e", "f"}}, "6 stop sequences: the Gemini API takes at most 5"},
		{"bad thinking_budget option", &sdk.Request{Messages: []sdk.Message{user("x")}, Options: map[string]json.RawMessage{"thinking_budget": json.RawMessage(`"lots"`)}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := buildRequest(tc.req, config{BaseURL: defaultBaseURL})
			if !errors.Is(err, sdk.ErrPermanent) {
				t.Fatalf("got %v, want a permanent error", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}
