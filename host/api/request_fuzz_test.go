package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unicode/utf8"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

// The request decoders read whatever a client sends. FuzzOpenAIRequest,
// FuzzAnthropicRequest and FuzzResponsesRequest check that, on any body, a decoder returns a
// call or a client error (never both, never neither); that the error is a
// 400 either wire format can render; that a call holds only what the
// provider plugins are promised (known roles, tool results in tool turns
// only, JSON object inputs and schemas, strings that cross the plugin
// boundary as proto3 strings must, valid UTF-8); that it shares no memory
// with the request body; and that decoding allocates in proportion to the
// body. The seeds are the requests the provider plugins were recorded
// sending (real Chat Completions and Messages bodies) and hand-made edge
// cases; make fuzz runs the targets longer.

func FuzzOpenAIRequest(f *testing.F) {
	addRecordedRequests(f)
	for _, body := range []string{
		``, `null`, `[]`, `"x"`, `{}`, `{"model":1}`, "{\"model\":\"m\xff\",\"messages\":[{\"role\":\"user\",\"content\":\"\xfe\"}]}",
		`{"model":"m","messages":[]}`,
		`{"model":"m","messages":[{"role":"system","content":"only a system prompt"}]}`,
		`{"model":"m","messages":[{"role":"user","content":null}]}`,
		`{"model":"m","n":2,"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","max_tokens":0,"max_completion_tokens":-1,"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","stop":"\n","temperature":0.2,"top_p":1,"seed":7,"reasoning_effort":"low","response_format":{"type":"json_object"},"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","stop":["a",1],"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","messages":[{"role":"developer","content":[{"type":"text","text":"be "},{"type":"refusal","refusal":"brief"}]},{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw=="}},{"type":"image_url","image_url":{"url":"https://example.com/cat.jpg"}}]},{"role":"system","content":"later"}]}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,!!"}}]}]}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png,abc"}}]}]}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"input_audio"}]}]}`,
		`{"model":"m","tools":[{"type":"function","function":{"name":"add","parameters":{"type":"object"}}}],"tool_choice":{"type":"function","function":{"name":"add"}},"messages":[
			{"role":"user","content":"add 2 and 3"},
			{"role":"assistant","content":null,"reasoning_content":"use add","tool_calls":[{"id":"c1","type":"function","function":{"name":"add","arguments":"{\"a\":2}"}},{"id":"c2","function":{"name":"add","arguments":""}}]},
			{"role":"tool","tool_call_id":"c1","content":"5"},{"role":"tool","tool_call_id":"c2","content":[{"type":"text","text":"5"}]}]}`,
		`{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"f","arguments":"[1]"}}]}]}`,
		`{"model":"m","messages":[{"role":"tool","content":"x"}]}`,
		`{"model":"m","messages":[{"role":"function","content":"x"}]}`,
		`{"model":"m","functions":[{"name":"f","parameters":[]}],"function_call":{"name":"f"},"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","tool_choice":"required","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","function_call":"required","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","tool_choice":{"type":"allowed_tools"},"messages":[{"role":"user","content":"hi"}]}`,
	} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkDecode(t, openaiDialect{}, body)
	})
}

func FuzzAnthropicRequest(f *testing.F) {
	addRecordedRequests(f)
	for _, body := range []string{
		``, `null`, `[]`, `{}`, `{"model":"m"}`, "{\"model\":\"m\",\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":\"\xff\"}]}",
		`{"model":"m","max_tokens":0,"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","max_tokens":1,"messages":[]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[]}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"system","content":"hi"}]}`,
		`{"model":"m","max_tokens":1024,"system":[{"type":"text","text":"be brief"},{"type":"text","text":"in French","cache_control":{"type":"ephemeral"}}],"temperature":1,"top_p":0.9,"top_k":40,"stop_sequences":["\n\n"],"stream":true,"thinking":{"type":"enabled","budget_tokens":2048},"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","max_tokens":1,"system":[{"type":"image"}],"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","max_tokens":1,"thinking":{"type":"disabled"},"messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw=="}},{"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}}]}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"iVBORw=="}}]}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"f"}}]}]}`,
		`{"model":"m","max_tokens":1,"tools":[{"name":"add","input_schema":{"type":"object"}}],"tool_choice":{"type":"tool","name":"add","disable_parallel_tool_use":true},"messages":[
			{"role":"user","content":"add 2 and 3"},
			{"role":"assistant","content":[{"type":"thinking","thinking":"use add","signature":"sig"},{"type":"redacted_thinking","data":"enc"},{"type":"tool_use","id":"t1","name":"add","input":{"a":2}},{"type":"tool_use","id":"t2","name":"add","input":null}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"5"},{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":[{"type":"text","text":"no"},{"type":"image","source":{"type":"url","url":"http://x/y.png"}}]},{"type":"text","text":"go on"}]}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":[1]}]}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"redacted_thinking"}]}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"tool_result","content":"x"}]}]}`,
		`{"model":"m","max_tokens":1,"tools":[{"type":"web_search_20250305","name":"web_search"}],"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","max_tokens":1,"tool_choice":{"type":"tool"},"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","max_tokens":1,"tool_choice":{"type":"every"},"messages":[{"role":"user","content":"hi"}]}`,
	} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkDecode(t, anthropicDialect{}, body)
	})
}

func FuzzResponsesRequest(f *testing.F) {
	addRecordedRequests(f)
	for _, body := range []string{
		``, `null`, `[]`, `{}`, `{"model":"m"}`, `{"model":"m","input":""}`, `{"model":"m","input":[]}`, "{\"model\":\"m\",\"input\":\"\xff\"}",
		`{"model":"m","instructions":"be brief","input":"hi","max_output_tokens":16,"temperature":0.2,"top_p":0.9,"store":false,"stream":true,"metadata":{"task":"code","x":"y"},"reasoning":{"effort":"low","summary":"auto"},"text":{"format":{"type":"json_object"},"verbosity":"low"}}`,
		`{"model":"m","text":{"format":{"type":"json_schema","name":"w","schema":{"type":"object"},"strict":true}},"input":"hi"}`,
		`{"model":"m","text":{"format":{"type":"json_schema","schema":[]}},"input":"hi"}`,
		`{"model":"m","tools":[{"type":"function","name":"add","parameters":{"type":"object"},"strict":true}],"tool_choice":{"type":"function","name":"add"},"parallel_tool_calls":false,"input":[
			{"role":"developer","content":"use add"},
			{"type":"message","role":"user","content":[{"type":"input_text","text":"add"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw=="},{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0=","filename":"a.pdf"}]},
			{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"think"}],"encrypted_content":"e"},
			{"type":"function_call","call_id":"c1","name":"add","arguments":"{\"a\":2}"},
			{"type":"function_call_output","call_id":"c1","output":"5"},
			{"role":"assistant","content":[{"type":"output_text","text":"5"}]}]}`,
		`{"model":"m","input":[{"type":"function_call","call_id":"c1","name":"f","arguments":"[1]"}]}`,
		`{"model":"m","input":[{"type":"function_call_output","call_id":"c9","output":"x"}]}`,
		`{"model":"m","input":[{"type":"item_reference","id":"x"}]}`,
		`{"model":"m","input":[{"type":"message","role":"narrator","content":"x"}]}`,
		`{"model":"m","input":"x","tools":[{"type":"file_search"}]}`,
		`{"model":"m","input":"x","background":true,"conversation":"c","prompt":{"id":"p"}}`,
		`{"model":"m","input":"x","tool_choice":{"type":"allowed_tools"}}`,
		`{"model":"m","input":"x","truncation":"auto","include":["reasoning.encrypted_content"],"service_tier":"flex","user":"u"}`,
	} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkDecode(t, responsesDialect{}, body)
	})
}

// addRecordedRequests seeds f with every request body the provider plugins
// were recorded sending. Each target gets all of them: the other formats'
// bodies are near misses worth mutating.
func addRecordedRequests(f *testing.F) {
	paths, err := filepath.Glob("../../plugins/testdata/wire/*/*.request.json")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no recorded requests found: %v", err)
	}
	for _, p := range paths {
		body, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body)
	}
}

// checkDecode decodes body with d and checks the properties above.
func checkDecode(t *testing.T, d dialect, body []byte) {
	t.Helper()
	c, err := d.decode(body)
	if (c == nil) == (err == nil) {
		t.Fatalf("decode returned call %v and error %v: want exactly one", c, err)
	}
	if err != nil {
		checkDecodeError(t, d, err)
	} else {
		checkCall(t, d, c)
	}

	// The call must not alias the body: the server's buffer may be reused
	// or overwritten once decoding returns.
	scratch := bytes.Clone(body)
	c2, err2 := d.decode(scratch)
	for i := range scratch {
		scratch[i] = '#'
	}
	if diff := cmp.Diff(c, c2, cmp.AllowUnexported(call{}, responsesCall{})); diff != "" || fmt.Sprint(err) != fmt.Sprint(err2) {
		t.Fatalf("the decoded call changed when the body's buffer was overwritten (-first +overwritten):\n%s", diff)
	}

	// Bounded work: linear in the body. The factor is encoding/json's: it
	// grows a slice of N structs in 1.25x steps, allocating about five
	// times the final slice, plus a type error per element that does not
	// fit, so a two-byte element ("0,") of a 208-byte content block costs
	// about 600 bytes. A decoder that walked the body again per message or
	// part would, on a long enough body, exceed it.
	if n := requestAllocated(func() { _, _ = d.decode(body) }); n > 64<<10+1024*uint64(len(body)) {
		t.Fatalf("decoding %d bytes allocated %d bytes", len(body), n)
	}
}

// checkDecodeError: a decoder's error is its own *wireError, a 400 with a
// code and a message, which renders as a JSON error body.
func checkDecodeError(t *testing.T, d dialect, err error) {
	t.Helper()
	var we *wireError
	if !errors.As(err, &we) {
		t.Fatalf("decode returned %T %v, want a *wireError", err, err)
	}
	if we.kind != kindInvalid || we.code == "" || we.message == "" {
		t.Fatalf("decode error %+v: want kindInvalid with a code and a message", we)
	}
	status, b := d.errorBody(we)
	if status != 400 || !json.Valid(b) {
		t.Fatalf("decode error renders as %d %s, want 400 with a JSON body", status, b)
	}
}

// checkCall: what the front door hands on holds only what the provider
// plugins are promised.
func checkCall(t *testing.T, d dialect, c *call) {
	t.Helper()
	req := c.req
	if c.model == "" || req == nil {
		t.Fatalf("call without a model or a request: %+v", c)
	}
	if req.MaxTokens < 0 || (d == dialect(anthropicDialect{}) && req.MaxTokens < 1) {
		t.Fatalf("max tokens %d", req.MaxTokens)
	}
	if c.includeUsage && !c.stream {
		t.Fatal("include_usage on a call that does not stream")
	}
	strs := append([]string{c.model, sdk.SystemText(req.System), req.ToolChoice.Name}, req.StopSequences...)
	if req.ToolChoice.Mode == sdk.ToolChoiceTool && req.ToolChoice.Name == "" {
		t.Fatal("tool choice names no tool")
	}
	for name, v := range req.Options {
		if !json.Valid(v) {
			t.Fatalf("option %s is not JSON: %q", name, v)
		}
	}
	for i, tool := range req.Tools {
		if tool.Name == "" {
			t.Fatalf("tools[%d] has no name", i)
		}
		if tool.InputSchema != nil && !jsonObject(tool.InputSchema) {
			t.Fatalf("tools[%d] schema is not a JSON object: %q", i, tool.InputSchema)
		}
		strs = append(strs, tool.Name, tool.Description)
	}
	for i, m := range req.Messages {
		switch m.Role {
		case sdk.RoleSystem, sdk.RoleUser, sdk.RoleAssistant, sdk.RoleTool:
		default:
			t.Fatalf("messages[%d] has role %q", i, m.Role)
		}
		for j, p := range m.Parts {
			if _, ok := p.(sdk.ToolResult); ok != (m.Role == sdk.RoleTool) {
				t.Fatalf("messages[%d].parts[%d]: %T in a %s turn (tool results belong in tool turns only)", i, j, p, m.Role)
			}
			strs = append(strs, partStrings(t, p)...)
		}
	}
	for _, s := range strs {
		if !utf8.ValidString(s) {
			t.Fatalf("%q is not valid UTF-8: the plugin boundary's proto3 strings would refuse it", s)
		}
	}
}

// partStrings checks one part and returns its strings.
func partStrings(t *testing.T, p sdk.Part) []string {
	t.Helper()
	switch p := p.(type) {
	case sdk.Text:
		return []string{p.Text}
	case sdk.Image:
		return []string{p.MediaType, p.URL}
	case sdk.Document:
		return []string{p.MediaType, p.URL, p.Title, p.Context}
	case sdk.Reasoning:
		return []string{p.Text, p.Signature, p.Redacted, p.Origin}
	case sdk.ToolCall:
		if p.ID == "" || p.Name == "" || !jsonObject(p.Input) {
			t.Fatalf("tool call %+v: want an id, a name and a JSON object input", p)
		}
		return []string{p.ID, p.Name}
	case sdk.ToolResult:
		if p.CallID == "" {
			t.Fatalf("tool result %+v answers no call", p)
		}
		out := []string{p.CallID, p.Name}
		for _, c := range p.Content {
			switch c.(type) {
			case sdk.Text, sdk.Image:
			default:
				t.Fatalf("tool result content holds a %T", c)
			}
			out = append(out, partStrings(t, c)...)
		}
		return out
	}
	t.Fatalf("unknown part %T", p)
	return nil
}

func jsonObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return json.Valid(b) && len(b) > 0 && b[0] == '{'
}

// requestAllocated is the number of bytes fn allocates. It counts the whole
// process, which is quiet when it runs: in a fuzz worker, or in the seed
// run after the package's tests have finished.
func requestAllocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
