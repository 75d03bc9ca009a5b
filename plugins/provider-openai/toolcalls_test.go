package main

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

func frag(index *int, id, name, args string) toolCallDelta {
	d := toolCallDelta{Index: index, ID: id}
	d.Function.Name = name
	d.Function.Arguments = args
	return d
}

func TestToolCallAssembly(t *testing.T) {
	t.Parallel()
	i0, i1, i2 := ptr(0), ptr(1), ptr(2)
	seed := func() string { return "seed" }
	call := func(id, name, input string) sdk.ToolCall {
		return sdk.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}
	}
	cases := []struct {
		name  string
		frags []toolCallDelta
		want  []sdk.ToolCall
	}{
		{"openai: id and name first, then index-only fragments", []toolCallDelta{
			frag(i0, "call_a", "weather", ""), frag(i0, "", "", `{"loc`), frag(i0, "", "", `":"Fl"}`),
			frag(i1, "call_b", "clock", ""), frag(i1, "", "", `{}`),
		}, []sdk.ToolCall{call("call_a", "weather", `{"loc":"Fl"}`), call("call_b", "clock", `{}`)}},
		{"interleaved fragments", []toolCallDelta{
			frag(i0, "call_a", "weather", ""), frag(i1, "call_b", "weather", ""),
			frag(i1, "", "", `{"l":"R"}`), frag(i0, "", "", `{"l":"F"}`),
		}, []sdk.ToolCall{call("call_a", "weather", `{"l":"F"}`), call("call_b", "weather", `{"l":"R"}`)}},
		{"index starts at 1", []toolCallDelta{
			frag(i1, "toolu_1", "read_file", ""), frag(i1, "", "", `{"path":`), frag(i1, "", "", `"a.txt"}`),
		}, []sdk.ToolCall{call("toolu_1", "read_file", `{"path":"a.txt"}`)}},
		{"every call at index 0 with distinct ids", []toolCallDelta{
			frag(i0, "call_a", "weather", ""), frag(i0, "", "", `{"l":"F"}`),
			frag(i0, "call_b", "weather", ""), frag(i0, "", "", `{"l":"R"}`),
		}, []sdk.ToolCall{call("call_a", "weather", `{"l":"F"}`), call("call_b", "weather", `{"l":"R"}`)}},
		{"id repeated on every fragment", []toolCallDelta{
			frag(i0, "call_a", "weather", `{"l":`), frag(i0, "call_a", "", `"F"}`),
		}, []sdk.ToolCall{call("call_a", "weather", `{"l":"F"}`)}},
		{"name repeated with an empty fragment", []toolCallDelta{
			frag(i0, "", "weather", `{"l":"F"}`), frag(i0, "", "weather", ``),
		}, []sdk.ToolCall{call("call_seed_0", "weather", `{"l":"F"}`)}},
		{"whole calls, empty ids, no index", []toolCallDelta{
			frag(nil, "", "weather", `{"l":"F"}`), frag(nil, "", "weather", `{"l":"R"}`),
		}, []sdk.ToolCall{call("call_seed_0", "weather", `{"l":"F"}`), call("call_seed_1", "weather", `{"l":"R"}`)}},
		{"whole calls, empty ids, same index", []toolCallDelta{
			frag(i0, "", "a", `{}`), frag(i0, "", "b", `{"x":1}`),
		}, []sdk.ToolCall{call("call_seed_0", "a", `{}`), call("call_seed_1", "b", `{"x":1}`)}},
		{"no index, continuation fragments", []toolCallDelta{
			frag(nil, "call_a", "weather", `{"l"`), frag(nil, "", "", `:"F"}`),
		}, []sdk.ToolCall{call("call_a", "weather", `{"l":"F"}`)}},
		{"empty arguments become an empty object", []toolCallDelta{
			frag(i2, "call_c", "clock", ""), frag(i2, "", "", ""),
		}, []sdk.ToolCall{call("call_c", "clock", `{}`)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var tc toolCalls
			for i := range c.frags {
				tc.add(&c.frags[i])
			}
			got, err := tc.finish(seed)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolCallAssemblyErrors(t *testing.T) {
	t.Parallel()
	for name, frags := range map[string][]toolCallDelta{
		"truncated arguments": {frag(ptr(0), "call_a", "weather", `{"l":"F`)},
		"arguments not JSON":  {frag(ptr(0), "call_a", "weather", `location=Florence`)},
		"no function name":    {frag(ptr(0), "call_a", "", `{}`)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var tc toolCalls
			for i := range frags {
				tc.add(&frags[i])
			}
			_, err := tc.finish(func() string { return "s" })
			if got := summarize(err); got.Class != sdk.ClassPermanent || got.Code != "malformed_tool_call" {
				t.Errorf("got %+v, want permanent malformed_tool_call", got)
			}
		})
	}
}
