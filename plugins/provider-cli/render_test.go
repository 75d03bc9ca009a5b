package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

func user(parts ...sdk.Part) sdk.Message { return sdk.Message{Role: sdk.RoleUser, Parts: parts} }

func assistant(parts ...sdk.Part) sdk.Message {
	return sdk.Message{Role: sdk.RoleAssistant, Parts: parts}
}

func TestRenderPrompt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		req  sdk.Request
		want string
	}{
		{"single user message is its text alone",
			sdk.Request{Messages: []sdk.Message{user(sdk.Text{Text: "What is 2+2?\n"})}},
			"What is 2+2?\n"},
		{"text parts are joined as they are",
			sdk.Request{Messages: []sdk.Message{user(sdk.Text{Text: "a"}, sdk.Text{Text: "b"})}},
			"ab"},
		{"a system prompt makes the layout",
			sdk.Request{System: sdk.SystemPrompt("Be terse."), Messages: []sdk.Message{user(sdk.Text{Text: "Hi"})}},
			"System:\nBe terse.\n\nUser:\nHi"},
		{"a plain-text document is its title, context and text",
			sdk.Request{Messages: []sdk.Message{user(sdk.Text{Text: "Summarise:\n"}, sdk.Document{MediaType: "text/plain", Data: []byte("It rained."), Title: "Diary", Context: "Monday"})}},
			"User:\nSummarise:\nDiary\nMonday\nIt rained."},
		{"a request for JSON ends with the instruction",
			sdk.Request{Messages: []sdk.Message{user(sdk.Text{Text: "Weather?"})}, Output: &sdk.Output{Kind: sdk.OutputJSON}},
			"Weather?\n\nRespond with a single JSON object and nothing else."},
		{"a request for a schema ends with it",
			sdk.Request{Messages: []sdk.Message{user(sdk.Text{Text: "Weather?"})}, Output: &sdk.Output{Kind: sdk.OutputJSONSchema, Schema: json.RawMessage(` {"type":"object"} `), Strict: false}},
			"Weather?\n\nRespond with a single JSON object and nothing else, valid against this JSON Schema:\n{\"type\":\"object\"}"},
		{"turns, system messages among them",
			sdk.Request{Messages: []sdk.Message{
				user(sdk.Text{Text: "Hi"}),
				assistant(sdk.Text{Text: "Hello."}),
				{Role: sdk.RoleSystem, Parts: []sdk.Part{sdk.Text{Text: "Now in French."}}},
				user(sdk.Text{Text: "Bye"}),
			}},
			"User:\nHi\n\nAssistant:\nHello.\n\nSystem:\nNow in French.\n\nUser:\nBye"},
		{"tool calls and results as text, reasoning dropped",
			sdk.Request{Messages: []sdk.Message{
				user(sdk.Text{Text: "Weather in Paris?"}),
				assistant(sdk.Reasoning{Text: "I should look.", Signature: "sig"}, sdk.Text{Text: "Let me look."},
					sdk.ToolCall{ID: "call_1", Name: "weather", Input: json.RawMessage(`{ "city": "Paris" }`)},
					sdk.ToolCall{ID: "call_2", Name: "clock"}),
				{Role: sdk.RoleTool, Parts: []sdk.Part{
					sdk.ToolResult{CallID: "call_1", Name: "weather", Content: []sdk.Part{sdk.Text{Text: "18C, sunny"}}},
					sdk.ToolResult{CallID: "call_2", Name: "clock", Content: []sdk.Part{sdk.Text{Text: "no clock"}}, IsError: true},
				}},
			}},
			"User:\nWeather in Paris?\n\nAssistant:\nLet me look.\n[tool call weather id=call_1] {\"city\":\"Paris\"}\n[tool call clock id=call_2] {}" +
				"\n\nTool result weather id=call_1:\n18C, sunny\n\nTool error clock id=call_2:\nno clock"},
		{"a trailing assistant message is rendered as a turn",
			sdk.Request{Messages: []sdk.Message{user(sdk.Text{Text: "Count"}), assistant(sdk.Text{Text: "1, 2,"})}},
			"User:\nCount\n\nAssistant:\n1, 2,"},
		{"an empty turn keeps its label",
			sdk.Request{Messages: []sdk.Message{user(sdk.Text{Text: "a"}), assistant(), user(sdk.Text{Text: "b"})}},
			"User:\na\n\nAssistant:\n\n\nUser:\nb"},
		{"tools offered are not rendered",
			sdk.Request{Tools: []sdk.ToolSpec{{Name: "x"}}, Messages: []sdk.Message{user(sdk.Text{Text: "hi"})}},
			"hi"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := renderPrompt(&c.req)
			if err != nil {
				t.Fatalf("renderPrompt: %v", err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("prompt (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRenderPromptRefuses(t *testing.T) {
	t.Parallel()
	img := sdk.Image{MediaType: "image/png", Data: []byte{1}}
	for _, c := range []struct {
		name  string
		req   sdk.Request
		inMsg string
	}{
		{"an image", sdk.Request{Messages: []sdk.Message{user(sdk.Text{Text: "what is this"}, img)}}, "images are not supported"},
		{"an image in a conversation", sdk.Request{System: sdk.SystemPrompt("s"), Messages: []sdk.Message{user(img)}}, "images are not supported"},
		{"an image in a tool result", sdk.Request{Messages: []sdk.Message{user(sdk.Text{Text: "a"}),
			{Role: sdk.RoleTool, Parts: []sdk.Part{sdk.ToolResult{CallID: "c", Content: []sdk.Part{img}}}}}}, "images are not supported"},
		{"a required tool call", sdk.Request{ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceRequired}, Messages: []sdk.Message{user(sdk.Text{Text: "a"})}}, "requires a tool call"},
		{"a named tool call", sdk.Request{ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "x"}, Messages: []sdk.Message{user(sdk.Text{Text: "a"})}}, "requires a tool call"},
		{"a PDF", sdk.Request{Messages: []sdk.Message{user(sdk.Text{Text: "a"}, sdk.Document{MediaType: "application/pdf", Data: []byte("%PDF")})}}, "application/pdf document is not supported"},
		{"a text document by URL", sdk.Request{Messages: []sdk.Message{user(sdk.Document{MediaType: "text/plain", URL: "https://x/y.txt"})}}, "document is not supported"},
		{"a schema that is not an object", sdk.Request{Messages: []sdk.Message{user(sdk.Text{Text: "a"})}, Output: &sdk.Output{Kind: sdk.OutputJSONSchema, Schema: json.RawMessage(`[]`)}}, "must be a JSON object"},
		{"no messages", sdk.Request{}, "no messages"},
		{"an empty prompt", sdk.Request{Messages: []sdk.Message{user(sdk.Text{Text: ""})}}, "empty prompt"},
		{"a tool input that is not an object", sdk.Request{Messages: []sdk.Message{user(sdk.Text{Text: "a"}),
			assistant(sdk.ToolCall{ID: "c", Name: "x", Input: json.RawMessage(`[1]`)})}}, "not a JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := renderPrompt(&c.req)
			if !errors.Is(err, sdk.ErrPermanent) || !strings.Contains(err.Error(), c.inMsg) {
				t.Errorf("renderPrompt: %v, want a permanent error with %q", err, c.inMsg)
			}
		})
	}
}

func TestBuildArgv(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		argv       []string
		model      string // configured
		via        string
		prompt     string
		reqModel   string
		want       []string
		wantErrMsg string
	}{
		{name: "prompt appended", argv: []string{"/bin/c", "-p"}, prompt: "hi", want: []string{"/bin/c", "-p", "hi"}},
		{name: "every {prompt} replaced, inside elements too", argv: []string{"/bin/c", "--prompt={prompt}", "{prompt}"}, prompt: "hi",
			want: []string{"/bin/c", "--prompt=hi", "hi"}},
		{name: "{model} from the block", argv: []string{"/bin/c", "--model", "{model}"}, model: "sonnet", prompt: "hi",
			want: []string{"/bin/c", "--model", "sonnet", "hi"}},
		{name: "{model} from the request", argv: []string{"/bin/c", "-m", "{model}"}, model: "sonnet", reqModel: "opus", prompt: "hi",
			want: []string{"/bin/c", "-m", "opus", "hi"}},
		{name: "placeholders are not searched for in the prompt", argv: []string{"/bin/c", "-m", "{model}", "{prompt}"}, model: "m", prompt: "say {model}",
			want: []string{"/bin/c", "-m", "m", "say {model}"}},
		{name: "a prompt that looks like a flag", argv: []string{"/bin/c", "-p"}, prompt: "--help", want: []string{"/bin/c", "-p", " --help"}},
		{name: "inside an element it stays", argv: []string{"/bin/c", "--prompt={prompt}"}, prompt: "-x", want: []string{"/bin/c", "--prompt=-x"}},
		{name: "stdin: nothing appended", argv: []string{"/bin/c", "exec"}, via: viaStdin, prompt: "hi", want: []string{"/bin/c", "exec"}},
		{name: "empty elements kept", argv: []string{"/bin/c", "--tools", "", "-p"}, prompt: "hi", want: []string{"/bin/c", "--tools", "", "-p", "hi"}},
		{name: "a model that looks like a flag", argv: []string{"/bin/c", "--model", "{model}"}, model: "m", reqModel: "--dangerous", prompt: "hi",
			wantErrMsg: "not a model name"},
		{name: "too long for an argument", argv: []string{"/bin/c"}, prompt: strings.Repeat("a", maxArg+1), wantErrMsg: "prompt_via"},
		{name: "a NUL byte", argv: []string{"/bin/c"}, prompt: "a\x00b", wantErrMsg: "NUL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := &settings{argv: c.argv, model: c.model, promptVia: viaArg}
			if c.via != "" {
				s.promptVia = c.via
			}
			for _, a := range c.argv {
				s.hasPrompt = s.hasPrompt || strings.Contains(a, placeholderPrompt)
				s.needsModel = s.needsModel || strings.Contains(a, placeholderModel)
			}
			got, err := s.buildArgv(c.prompt, c.reqModel)
			if c.wantErrMsg != "" {
				if !errors.Is(err, sdk.ErrPermanent) || !strings.Contains(err.Error(), c.wantErrMsg) {
					t.Errorf("buildArgv: %v, want a permanent error with %q", err, c.wantErrMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("buildArgv: %v", err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
		})
	}
}
