package main

import (
	"encoding/json"
	"fmt"

	"github.com/axonhq/axon/sdk"
)

// toolCalls assembles tool-call fragments into whole calls, numbered in the
// order they first appear. The upstream index alone cannot key them:
// servers send every call with index 0 but distinct ids, start at index 1,
// or send Gemini's empty ids, so a fragment is matched by id first, then by
// index, and a fragment that names a function while the call at its index
// is already whole starts a new call.
type toolCalls struct {
	calls   []*pendingCall
	byIndex map[int]int // upstream index → position of the latest call using it
}

type pendingCall struct {
	id   string
	name string
	args []byte
}

// add merges one streamed fragment.
func (t *toolCalls) add(d *toolCallDelta) {
	pos := t.match(d)
	if pos < 0 {
		pos = len(t.calls)
		t.calls = append(t.calls, &pendingCall{})
	}
	c := t.calls[pos]
	if c.id == "" {
		c.id = d.ID
	}
	if c.name == "" {
		c.name = d.Function.Name
	}
	c.args = append(c.args, d.Function.Arguments...)
	if d.Index != nil {
		if t.byIndex == nil {
			t.byIndex = make(map[int]int)
		}
		t.byIndex[*d.Index] = pos
	}
}

// addWhole adds a call that arrived complete (a non-streaming reply).
func (t *toolCalls) addWhole(d *toolCallDelta) {
	t.calls = append(t.calls, &pendingCall{id: d.ID, name: d.Function.Name, args: []byte(d.Function.Arguments)})
}

// match returns the position of the call d continues, or -1 for a new call.
func (t *toolCalls) match(d *toolCallDelta) int {
	if d.ID != "" {
		for i, c := range t.calls {
			if c.id == d.ID {
				return i
			}
		}
		return -1
	}
	pos := len(t.calls) - 1 // no index: fragments continue the latest call
	if d.Index != nil {
		p, ok := t.byIndex[*d.Index]
		if !ok {
			return -1
		}
		pos = p
	}
	if pos < 0 {
		return -1
	}
	c := t.calls[pos]
	if d.Function.Name != "" && c.name != "" && !(d.Function.Name == c.name && d.Function.Arguments == "") && json.Valid(c.args) {
		return -1 // a second whole call reusing the index (or sent without one)
	}
	return pos
}

// finish returns the assembled calls with their stable Index. A call
// without an id gets one derived from seed, unique within the reply. Input
// that is not JSON is the model's fault and a permanent error.
func (t *toolCalls) finish(seed func() string) ([]sdk.ToolCall, error) {
	out := make([]sdk.ToolCall, 0, len(t.calls))
	for i, c := range t.calls {
		if c.name == "" {
			return nil, sdk.ErrMalformedToolCall.Newf("openai: tool call %d has no function name", i)
		}
		args, err := sdk.ToolInput(c.args) // none: a call without arguments, {}
		if err != nil {
			return nil, sdk.ErrMalformedToolCall.Newf("openai: tool call %d: arguments are not valid JSON", i)
		}
		id := c.id
		if id == "" {
			id = fmt.Sprintf("call_%s_%d", seed(), i)
		}
		out = append(out, sdk.ToolCall{ID: id, Name: c.name, Input: args})
	}
	return out, nil
}
