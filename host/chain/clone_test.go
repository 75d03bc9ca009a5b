package chain

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

// fullRequest sets every field of sdk.Request and of every Part type, in
// value and pointer form, so TestCloneRequest notices a field sdk adds.
func fullRequest() *sdk.Request {
	temp := 0.7
	parts := []sdk.Part{
		sdk.Text{Text: "look", Cache: sdk.Cache1h},
		sdk.Image{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}, URL: "https://example.com/a.png", Cache: sdk.CacheDefault},
		sdk.Document{MediaType: "application/pdf", Data: []byte("%PDF"), URL: "https://example.com/a.pdf", Title: "a", Context: "c", Cache: sdk.Cache5m},
		sdk.Reasoning{Text: "think", Signature: "sig", Redacted: "enc", Origin: "ollama"}, // the fallback hop made it: it receives it
		sdk.ToolCall{ID: "call_1", Name: "weather", Input: json.RawMessage(`{"city":"Oslo"}`), Cache: sdk.Cache5m},
		sdk.ToolResult{CallID: "call_1", Name: "weather", Content: []sdk.Part{sdk.Text{Text: "rain", Cache: sdk.Cache5m}, sdk.Image{MediaType: "image/jpeg", Data: []byte{1}, URL: "u", Cache: sdk.Cache5m}}, IsError: true, Cache: sdk.Cache5m},
		&sdk.Text{Text: "ptr", Cache: sdk.Cache5m},
		&sdk.Image{MediaType: "image/gif", Data: []byte{2, 3}, URL: "v", Cache: sdk.Cache5m},
		&sdk.Document{MediaType: "text/plain", Data: []byte("doc"), URL: "w", Title: "t", Context: "c", Cache: sdk.Cache1h},
		&sdk.Reasoning{Text: "t", Signature: "s", Redacted: "r", Origin: "glm"},
		&sdk.ToolCall{ID: "call_2", Name: "clock", Input: json.RawMessage(`{}`), Cache: sdk.Cache5m},
		&sdk.ToolResult{CallID: "call_2", Name: "clock", Content: []sdk.Part{&sdk.Text{Text: "noon", Cache: sdk.Cache5m}}, IsError: true, Cache: sdk.Cache5m},
	}
	return &sdk.Request{
		Model:         "model",
		System:        []sdk.Text{{Text: "be brief", Cache: sdk.Cache1h}},
		Messages:      []sdk.Message{{Role: sdk.RoleUser, Parts: parts}},
		Tools:         []sdk.ToolSpec{{Name: "weather", Description: "forecast", InputSchema: json.RawMessage(`{"type":"object"}`), SideEffect: sdk.SideEffectNone, Cache: sdk.CacheDefault}},
		ToolChoice:    sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "weather", Sequential: true},
		MaxTokens:     256,
		Temperature:   &temp,
		StopSequences: []string{"END"},
		Output:        &sdk.Output{Kind: sdk.OutputJSONSchema, Name: "w", Schema: json.RawMessage(`{"type":"object"}`), Strict: true},
		Options:       map[string]json.RawMessage{"top_k": json.RawMessage(`40`)},
	}
}

func TestCloneRequest(t *testing.T) {
	t.Parallel()
	orig := fullRequest()
	if unset := zeroFields(reflect.ValueOf(orig), "Request"); len(unset) > 0 {
		t.Fatalf("fullRequest leaves fields unset, so the clone test cannot see them: %v", unset)
	}
	clone := cloneRequest(orig, "model")
	if diff := cmp.Diff(orig, clone); diff != "" {
		t.Errorf("clone differs (-orig +clone):\n%s", diff)
	}
	if shared := sharedMemory(reflect.ValueOf(orig), reflect.ValueOf(clone), "Request"); len(shared) > 0 {
		t.Errorf("clone shares memory with the original at %v", shared)
	}
	if got := cloneRequest(orig, "other").Model; got != "other" {
		t.Errorf("clone Model = %q, want the hop's model", got)
	}
	empty := &sdk.Request{}
	if diff := cmp.Diff(empty, cloneRequest(empty, "")); diff != "" {
		t.Errorf("clone of an empty request (-want +got):\n%s", diff)
	}
}

// TestRunGivesEachAttemptAFreshRequest: a hop that mutates its request
// affects neither the caller, nor its own retry, nor the next hop.
func TestRunGivesEachAttemptAFreshRequest(t *testing.T) {
	t.Parallel()
	mutate := func(_ context.Context, req *sdk.Request, _ sdk.Sink) error {
		vandalize(req)
		return classErr(sdk.ClassTransient, 500, 0)
	}
	glm := &scripted{t: t, name: "glm", calls: [][]step{{mutate}, {mutate}}}
	ollama := &scripted{t: t, name: "ollama", calls: [][]step{answer("qwen2.5:3b", `{"hi":1}`)}} // fullRequest asks for a strict object
	c := &Chain{Name: "default", Clock: newFakeClock(), Hops: []Hop{
		{Name: "glm", Provider: glm, Model: "glm-4.6", Output: true},
		{Name: "ollama", Provider: ollama, Model: "qwen2.5:3b", Output: true},
	}}
	req := fullRequest()
	if _, err := c.Run(context.Background(), req, &recorder{}, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fullRequest(), req); diff != "" {
		t.Errorf("the caller's request changed (-want +got):\n%s", diff)
	}
	want := fullRequest()
	want.Model = "qwen2.5:3b"
	if diff := cmp.Diff(want, ollama.reqs[0]); diff != "" {
		t.Errorf("the fallback hop's request (-want +got):\n%s", diff)
	}
	if glm.reqs[0] == glm.reqs[1] {
		t.Error("the retry got the same request value as the failed attempt")
	}
}

// vandalize changes everything reachable from req in place, the way a
// careless in-process provider might.
func vandalize(req *sdk.Request) {
	req.Model, req.MaxTokens = "x", 1
	req.System[0].Text = "x"
	req.Output.Schema[0] = 'X'
	req.Output.Name = "x"
	*req.Temperature = 2
	req.StopSequences[0] = "x"
	req.Options["top_k"][0] = 'X'
	req.Options["new"] = json.RawMessage(`1`)
	req.Tools[0].InputSchema[0] = 'X'
	req.Tools[0].Name = "x"
	m := &req.Messages[0]
	for i, p := range m.Parts {
		switch v := p.(type) {
		case sdk.Image:
			v.Data[0] = 'X'
		case sdk.Document:
			v.Data[0] = 'X'
		case *sdk.Document:
			v.Data[0] = 'X'
		case sdk.ToolCall:
			v.Input[0] = 'X'
		case sdk.ToolResult:
			v.Content[0] = sdk.Text{Text: "x"}
		case *sdk.Text:
			v.Text = "x"
		case *sdk.Image:
			v.Data[0] = 'X'
		case *sdk.Reasoning:
			v.Signature = "x"
		case *sdk.ToolCall:
			v.Input[0] = 'X'
		case *sdk.ToolResult:
			v.Content[0].(*sdk.Text).Text = "x"
		default:
			m.Parts[i] = sdk.Text{Text: "x"}
		}
	}
	req.Messages = append(req.Messages, sdk.Message{Role: sdk.RoleAssistant})
}

// zeroFields lists the zero-valued struct fields reachable from v.
func zeroFields(v reflect.Value, path string) []string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return []string{path}
		}
		return zeroFields(v.Elem(), path)
	case reflect.Slice:
		var out []string
		for i := range v.Len() {
			out = append(out, zeroFields(v.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	case reflect.Struct:
		var out []string
		for i := range v.NumField() {
			f := v.Field(i)
			p := path + "." + v.Type().Field(i).Name
			if f.IsZero() {
				out = append(out, p)
				continue
			}
			out = append(out, zeroFields(f, p)...)
		}
		return out
	}
	return nil
}

// sharedMemory lists the places where a and b, two values of one type,
// point at the same pointer target, slice array or map.
func sharedMemory(a, b reflect.Value, path string) []string {
	var out []string
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return nil
		}
		if a.Pointer() == b.Pointer() {
			out = append(out, path)
		}
		return append(out, sharedMemory(a.Elem(), b.Elem(), "*"+path)...)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return nil
		}
		return sharedMemory(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Cap() > 0 && b.Cap() > 0 && a.Pointer() == b.Pointer() {
			out = append(out, path)
		}
		for i := range min(a.Len(), b.Len()) {
			out = append(out, sharedMemory(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	case reflect.Map:
		if a.IsNil() || b.IsNil() {
			return nil
		}
		if a.Pointer() == b.Pointer() {
			out = append(out, path)
		}
		for _, k := range a.MapKeys() {
			if bv := b.MapIndex(k); bv.IsValid() {
				out = append(out, sharedMemory(a.MapIndex(k), bv, fmt.Sprintf("%s[%v]", path, k))...)
			}
		}
		return out
	case reflect.Struct:
		for i := range a.NumField() {
			out = append(out, sharedMemory(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name)...)
		}
		return out
	}
	return nil
}
