package sdktest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
)

func TestCheckStream(t *testing.T) {
	t.Parallel()
	start := sdk.Event{Type: sdk.EventStart, Model: "m"}
	finish := sdk.Event{Type: sdk.EventFinish, Finish: sdk.FinishStop}
	call := func(index int, id, input string) sdk.Event {
		return sdk.Event{Type: sdk.EventToolCall, Index: index, ToolCall: &sdk.ToolCall{ID: id, Name: "f", Input: json.RawMessage(input)}}
	}
	failed := sdk.Transientf("cut")
	tests := map[string]struct {
		events []sdk.Event
		err    error
		want   string // a failure containing this; empty means none
	}{
		"text":                     {events: []sdk.Event{start, {Type: sdk.EventTextDelta, Text: "hi"}, finish}},
		"two calls":                {events: []sdk.Event{start, call(0, "a", `{}`), call(1, "b", `{"x":1}`), finish}},
		"failure without finish":   {events: []sdk.Event{start}, err: failed},
		"failure before any event": {err: failed},
		"no start":                 {events: []sdk.Event{finish}, want: "without a start"},
		"start not first":          {events: []sdk.Event{start, start, finish}, want: "start is not first"},
		"no finish":                {events: []sdk.Event{start}, want: "0 finish events"},
		"finish not last":          {events: []sdk.Event{start, finish, {Type: sdk.EventTextDelta}}, want: "finish is not last"},
		"finish then failure":      {events: []sdk.Event{start, finish}, err: failed, want: "after a finish"},
		"index twice":              {events: []sdk.Event{start, call(0, "a", `{}`), call(0, "b", `{}`), finish}, want: "index 0 sent twice"},
		"index gap":                {events: []sdk.Event{start, call(1, "a", `{}`), finish}, want: "none has index 0"},
		"empty id":                 {events: []sdk.Event{start, call(0, "", `{}`), finish}, want: "empty or used twice"},
		"id twice":                 {events: []sdk.Event{start, call(0, "a", `{}`), call(1, "a", `{}`), finish}, want: "empty or used twice"},
		"input not JSON":           {events: []sdk.Event{start, call(0, "a", `{"x":`), finish}, want: "not a JSON object"},
		"input not an object":      {events: []sdk.Event{start, call(0, "a", `[1]`), finish}, want: "not a JSON object"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			errs := failures(t, func(tb testing.TB) { CheckStream(tb, tc.events, tc.err) })
			switch {
			case tc.want == "" && len(errs) != 0:
				t.Errorf("failures %q, want none", errs)
			case tc.want != "" && !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, tc.want) }):
				t.Errorf("failures %q, want one containing %q", errs, tc.want)
			}
		})
	}
}
