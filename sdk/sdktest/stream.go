package sdktest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// CheckStream asserts what holds for every Generate call, whatever it
// answered: a success starts with EventStart and ends with exactly one
// EventFinish; a failure sends no EventFinish; the tool calls of a turn
// have the indices 0..n-1, each once, distinct non-empty ids, and a JSON
// object as input. CheckEvents adds what a successful call must carry.
func CheckStream(t testing.TB, events []sdk.Event, err error) {
	t.Helper()
	finishes, calls := 0, 0
	indices, ids := map[int]bool{}, map[string]bool{}
	for i, ev := range events {
		switch ev.Type {
		case sdk.EventStart:
			if i != 0 {
				t.Errorf("event %d: start is not first", i)
			}
		case sdk.EventFinish:
			finishes++
			if i != len(events)-1 {
				t.Errorf("event %d: finish is not last", i)
			}
		case sdk.EventToolCall:
			if ev.ToolCall == nil {
				t.Errorf("event %d: tool call event without a call", i)
				continue
			}
			if indices[ev.Index] {
				t.Errorf("tool call index %d sent twice", ev.Index)
			}
			indices[ev.Index] = true
			if ev.ToolCall.ID == "" || ids[ev.ToolCall.ID] {
				t.Errorf("tool call %d: id %q is empty or used twice", calls, ev.ToolCall.ID)
			}
			ids[ev.ToolCall.ID] = true
			if !json.Valid(ev.ToolCall.Input) || !bytes.HasPrefix(bytes.TrimSpace(ev.ToolCall.Input), []byte("{")) {
				t.Errorf("tool call %d: input %q is not a JSON object", calls, ev.ToolCall.Input)
			}
			calls++
		}
	}
	for i := range calls {
		if !indices[i] {
			t.Errorf("%d tool calls, but none has index %d", calls, i)
		}
	}
	switch {
	case err == nil && (len(events) == 0 || events[0].Type != sdk.EventStart):
		t.Error("success without a start event")
	case err == nil && finishes != 1:
		t.Errorf("success with %d finish events", finishes)
	case err != nil && finishes != 0:
		t.Errorf("failure %v after a finish event", err)
	}
}
