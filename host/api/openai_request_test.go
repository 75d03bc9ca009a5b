package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

// callCmp compares decoded calls, unexported fields included.
var callCmp = cmp.AllowUnexported(call{})

func TestOpenAIDecode(t *testing.T) {
	t.Parallel()
	png := []byte{0x89, 'P', 'N', 'G'}
	tests := []struct {
		name string
		body string
		want *call
	}{{
		name: "minimal",
		body: `{"model":"default","messages":[{"role":"user","content":"hi"}]}`,
		want: &call{model: "default", req: &sdk.Request{
			Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "hi"}}}},
		}},
	}, {
		name: "leading system and developer messages form the system prompt, later ones stay in place",
		body: `{"model":"default","messages":[
			{"role":"system","content":"be brief"},
			{"role":"developer","content":[{"type":"text","text":"use "},{"type":"text","text":"French"}]},
			{"role":"user","content":"hi"},
			{"role":"system","content":"now be verbose"}]}`,
		want: &call{model: "default", req: &sdk.Request{
			System: []sdk.Text{{Text: "be brief"}, {Text: "use French"}},
			Messages: []sdk.Message{
				{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "hi"}}},
				{Role: sdk.RoleSystem, Parts: []sdk.Part{sdk.Text{Text: "now be verbose"}}},
			},
		}},
	}, {
		name: "user parts with a data URL image and a remote image",
		body: `{"model":"default","messages":[{"role":"user","content":[
			{"type":"text","text":"what is this?"},
			{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw==","detail":"low"}},
			{"type":"image_url","image_url":{"url":"https://example.com/cat.jpg"}}]}]}`,
		want: &call{model: "default", ignored: "messages[].content[].image_url.detail", req: &sdk.Request{
			Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{
				sdk.Text{Text: "what is this?"},
				sdk.Image{MediaType: "image/png", Data: png},
				sdk.Image{URL: "https://example.com/cat.jpg"},
			}}},
		}},
	}, {
		name: "tool turn: assistant reasoning and parallel calls, results merged into one tool turn and named",
		body: `{"model":"default/glm","messages":[
			{"role":"user","content":"add and multiply 2 and 3"},
			{"role":"assistant","content":null,"reasoning_content":"both tools","tool_calls":[
				{"id":"call_a","type":"function","function":{"name":"add","arguments":"{\"a\":2,\"b\":3}"}},
				{"id":"call_m","type":"function","function":{"name":"multiply","arguments":""}}]},
			{"role":"tool","tool_call_id":"call_a","content":"5"},
			{"role":"tool","tool_call_id":"call_m","content":[{"type":"text","text":"6"}]},
			{"role":"assistant","content":"5 and 6"}]}`,
		want: &call{model: "default/glm", req: &sdk.Request{
			Messages: []sdk.Message{
				{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "add and multiply 2 and 3"}}},
				{Role: sdk.RoleAssistant, Parts: []sdk.Part{
					sdk.Reasoning{Text: "both tools"},
					sdk.ToolCall{ID: "call_a", Name: "add", Input: json.RawMessage(`{"a":2,"b":3}`)},
					sdk.ToolCall{ID: "call_m", Name: "multiply", Input: json.RawMessage(`{}`)},
				}},
				{Role: sdk.RoleTool, Parts: []sdk.Part{
					sdk.ToolResult{CallID: "call_a", Name: "add", Content: []sdk.Part{sdk.Text{Text: "5"}}},
					sdk.ToolResult{CallID: "call_m", Name: "multiply", Content: []sdk.Part{sdk.Text{Text: "6"}}},
				}},
				{Role: sdk.RoleAssistant, Parts: []sdk.Part{sdk.Text{Text: "5 and 6"}}},
			},
		}},
	}, {
		name: "tools, deprecated functions, named tool choice, limits, stop list, stream with usage, options",
		body: `{"model":"default","messages":[{"role":"user","content":"x"}],
			"tools":[{"type":"function","function":{"name":"add","description":"Add","parameters":{"type":"object"},"strict":false}}],
			"functions":[{"name":"legacy"}],
			"tool_choice":{"type":"function","function":{"name":"add"}},
			"max_tokens":100,"max_completion_tokens":200,"temperature":0.5,"stop":["END","STOP"],
			"stream":true,"stream_options":{"include_usage":true},"n":1,
			"reasoning_effort":"high","response_format":{"type":"json_object"},"parallel_tool_calls":false,"top_p":0.9,"seed":7,
			"user":"ignored","logit_bias":{"1":2}}`,
		want: &call{model: "default", stream: true, includeUsage: true, ignored: "user,logit_bias", req: &sdk.Request{
			Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "x"}}}},
			Tools: []sdk.ToolSpec{
				{Name: "add", Description: "Add", InputSchema: json.RawMessage(`{"type":"object"}`)},
				{Name: "legacy"},
			},
			ToolChoice:    sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "add", Sequential: true},
			MaxTokens:     200,
			Temperature:   ptr(0.5),
			StopSequences: []string{"END", "STOP"},
			Output:        &sdk.Output{Kind: sdk.OutputJSON},
			Options: map[string]json.RawMessage{
				"reasoning_effort": json.RawMessage(`"high"`),
				"top_p":            json.RawMessage(`0.9`),
				"seed":             json.RawMessage(`7`),
			},
		}},
	}, {
		name: "stop as a string, max_tokens alone, include_usage ignored without stream",
		body: `{"model":"default","messages":[{"role":"user","content":"x"}],"stop":"END","max_tokens":5,"stream_options":{"include_usage":true}}`,
		want: &call{model: "default", req: &sdk.Request{
			Messages:      []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "x"}}}},
			MaxTokens:     5,
			StopSequences: []string{"END"},
		}},
	}}
	for _, mode := range []struct {
		choice string
		want   sdk.ToolChoice
	}{
		{`"tool_choice":"auto"`, sdk.ToolChoice{Mode: sdk.ToolChoiceAuto}},
		{`"tool_choice":"none"`, sdk.ToolChoice{Mode: sdk.ToolChoiceNone}},
		{`"tool_choice":"required"`, sdk.ToolChoice{Mode: sdk.ToolChoiceRequired}},
		{`"function_call":"none"`, sdk.ToolChoice{Mode: sdk.ToolChoiceNone}},
		{`"function_call":{"name":"add"}`, sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "add"}},
	} {
		tests = append(tests, struct {
			name string
			body string
			want *call
		}{
			name: "tool choice " + mode.choice,
			body: `{"model":"m","messages":[{"role":"user","content":"x"}],` + mode.choice + `}`,
			want: &call{model: "m", req: &sdk.Request{
				Messages:   []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "x"}}}},
				ToolChoice: mode.want,
			}},
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := openaiDialect{}.decode([]byte(tt.body))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, callCmp); diff != "" {
				t.Errorf("decode mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenAIDecodeRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		code       string // wire error code
		param      string
		message    string // a substring of the message
	}{
		{"empty body", ``, "invalid_json", "", "empty"},
		{"not JSON", `{"model":`, "invalid_json", "", "not valid JSON"},
		{"wrong type", `{"model":1,"messages":[]}`, "invalid_value", "model", "want string"},
		{"no model", `{"messages":[{"role":"user","content":"x"}]}`, "missing_required_parameter", "model", "field required"},
		{"no messages", `{"model":"m","messages":[]}`, "missing_required_parameter", "messages", "field required"},
		{"several choices", `{"model":"m","messages":[{"role":"user","content":"x"}],"n":2}`, "unsupported_value", "n", "n=1"},
		{"zero max tokens", `{"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_tokens":0}`, "invalid_value", "max_completion_tokens", "at least 1"},
		{"unknown role", `{"model":"m","messages":[{"role":"robot","content":"x"}]}`, "invalid_value", "messages[0].role", `"robot"`},
		{"function role", `{"model":"m","messages":[{"role":"function","name":"f","content":"x"}]}`, "unsupported_value", "messages[0].role", `role "tool"`},
		{"user without content", `{"model":"m","messages":[{"role":"user"}]}`, "missing_required_parameter", "messages[0].content", "field required"},
		{"audio part", `{"model":"m","messages":[{"role":"user","content":[{"type":"input_audio"}]}]}`, "unsupported_value", "messages[0].content[0].type", "input_audio"},
		{"image in a system message", `{"model":"m","messages":[{"role":"system","content":[{"type":"image_url"}]},{"role":"user","content":"x"}]}`, "unsupported_value", "messages[0].content[0].type", "only text"},
		{"ftp image", `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"ftp://x/y.png"}}]}]}`, "invalid_value", "messages[0].content[0].image_url.url", "http(s)"},
		{"data URL without base64", `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png,abc"}}]}]}`, "invalid_value", "messages[0].content[0].image_url.url", "base64"},
		{"bad base64", `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,!!!"}}]}]}`, "invalid_value", "messages[0].content[0].image_url.url", "not valid base64"},
		{"tool result without call id", `{"model":"m","messages":[{"role":"tool","content":"5"}]}`, "missing_required_parameter", "messages[0].tool_call_id", "field required"},
		{"tool call arguments not JSON", `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{oops"}}]}]}`, "invalid_value", "messages[0].tool_calls[0].function.arguments", "JSON object"},
		{"tool call without id", `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]}]}`, "missing_required_parameter", "messages[0].tool_calls[0].id", "field required"},
		{"custom tool", `{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"custom","custom":{"name":"x"}}]}`, "unsupported_value", "tools[0].type", "only function"},
		{"tool without name", `{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{}}]}`, "missing_required_parameter", "tools[0].function.name", "field required"},
		{"schema not an object", `{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":[]}}]}`, "invalid_value", "tools[0].function.parameters", "JSON Schema object"},
		{"unknown tool choice", `{"model":"m","messages":[{"role":"user","content":"x"}],"tool_choice":"sometimes"}`, "invalid_value", "tool_choice", `"sometimes"`},
		{"tool choice without name", `{"model":"m","messages":[{"role":"user","content":"x"}],"tool_choice":{"type":"function","function":{}}}`, "missing_required_parameter", "tool_choice.function.name", "field required"},
		{"stop of numbers", `{"model":"m","messages":[{"role":"user","content":"x"}],"stop":[1]}`, "invalid_value", "stop", "list of strings"},
		{"logprobs", `{"model":"m","messages":[{"role":"user","content":"x"}],"logprobs":true}`, "unsupported_value", "logprobs", "log probabilities"},
		{"top_logprobs", `{"model":"m","messages":[{"role":"user","content":"x"}],"top_logprobs":3}`, "unsupported_value", "top_logprobs", "log probabilities"},
		{"audio output", `{"model":"m","messages":[{"role":"user","content":"x"}],"audio":{"voice":"alloy","format":"mp3"}}`, "unsupported_value", "audio", "audio output"},
		{"audio modality", `{"model":"m","messages":[{"role":"user","content":"x"}],"modalities":["text","audio"]}`, "unsupported_value", "modalities", "audio"},
		{"web search", `{"model":"m","messages":[{"role":"user","content":"x"}],"web_search_options":{"search_context_size":"low"}}`, "unsupported_value", "web_search_options", "web search"},
		{"file id", `{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"file_id":"file-1"}}]}]}`, "unsupported_value", "messages[0].content[0].file.file_id", "file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := openaiDialect{}.decode([]byte(tt.body))
			checkReject(t, err, tt.code, tt.param, tt.message)
		})
	}
}

// checkReject fails unless err is a 400 *wireError with code, param and a
// message containing message.
func checkReject(t *testing.T, err error, code, param, message string) {
	t.Helper()
	if err == nil {
		t.Fatal("decode accepted the request")
	}
	we := asWireError(err)
	if we.kind != kindInvalid || we.code != code || we.param != param || !strings.Contains(we.message, message) {
		t.Errorf("got kind %d code %q param %q message %q; want invalid, code %q, param %q, message containing %q",
			we.kind, we.code, we.param, we.message, code, param, message)
	}
}

// sharedFixtures holds request bodies recorded from real clients by other
// projects (see its README).
const sharedFixtures = "../../plugins/testdata/wire" // the recorded provider responses; see plugins/testdata/README.md

// recordedInvalid are the recorded requests the provider refused as
// malformed; axon must refuse them too.
var recordedInvalid = map[string]string{
	"anthropic/error-400-invalid-request.request.json":    "messages[0] is a string, not a message",
	"openai/error-400-unsupported-parameter.request.json": "max_tokens 0 and a user message with null content",
}

// TestDecodeRecordedRequests decodes every recorded request of both wire
// formats: real clients' bodies, with fields axon ignores, must be
// accepted, and the ones the provider refused as malformed refused.
func TestDecodeRecordedRequests(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(sharedFixtures, "*", "*.request.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded requests under %s (the fixtures are committed): %v", sharedFixtures, err)
	}
	decoded := 0
	for _, f := range files {
		rel, _ := filepath.Rel(sharedFixtures, f)
		var d dialect
		switch {
		case strings.HasPrefix(rel, "anthropic/"):
			d = anthropicDialect{}
		case strings.HasPrefix(rel, "gemini/") && !strings.HasPrefix(rel, "gemini/openai-compat-"),
			strings.HasPrefix(rel, "openai/responses-"),
			strings.HasPrefix(rel, "ollama/api-"):
			continue // other wire families: Gemini native, OpenAI Responses, Ollama native
		default:
			d = openaiDialect{}
		}
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.decode(body)
		if why, bad := recordedInvalid[filepath.ToSlash(rel)]; bad {
			if err == nil {
				t.Errorf("%s: accepted, want refused (%s)", rel, why)
			}
		} else if err != nil {
			t.Errorf("%s: %v", rel, err)
		}
		decoded++
	}
	if decoded < 20 {
		t.Errorf("decoded only %d recorded requests; the fixture set shrank or moved", decoded)
	}
}
