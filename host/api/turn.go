package api

import (
	"bytes"
	"encoding/json"

	"github.com/axonhq/axon/sdk"
)

// turn checks and records the canonical events of one answer: what both
// wire formats need to know at the end (model, usage, finish, number of tool
// calls) and, for a whole (non-streamed) response, the content itself.
type turn struct {
	keepParts bool          // collect content into parts (whole responses)
	newID     func() string // names tool calls that arrive without an id

	model    string
	usage    sdk.Usage
	hasUsage bool
	finish   sdk.FinishReason
	finished bool
	calls    int        // tool calls so far: the next call's wire index
	parts    []sdk.Part // Text, Reasoning and ToolCall, in order, when keepParts
	open     bool       // the last part is a Reasoning block still taking text
}

// add checks ev, records it, and returns it normalised for the writers: a
// tool call gets an id when it has none, "{}" for empty input, and the
// Index of its arrival order, so indices are distinct and dense (0, 1, ...)
// whatever the backend numbered.
func (t *turn) add(ev sdk.Event) (sdk.Event, error) {
	if t.finished {
		return ev, sdk.Permanentf("event %q after the finish event", ev.Type)
	}
	switch ev.Type {
	case sdk.EventStart:
		if ev.Model != "" {
			t.model = ev.Model
		}
	case sdk.EventUsage:
		if ev.Usage != nil {
			t.mergeUsage(ev.Usage)
		}
	case sdk.EventFinish:
		t.finished, t.finish = true, ev.Finish
	case sdk.EventTextDelta:
		if t.keepParts && ev.Text != "" {
			t.addText(ev.Text)
		}
	case sdk.EventReasoningDelta:
		if t.keepParts {
			t.addReasoning(ev)
		}
	case sdk.EventToolCall:
		call, err := t.normaliseCall(ev.ToolCall)
		if err != nil {
			return ev, err
		}
		ev.ToolCall, ev.Index = call, t.calls
		t.calls++
		if t.keepParts {
			t.parts, t.open = append(t.parts, *call), false
		}
	}
	// Event types this package does not know are passed on; the writers
	// skip them, so a newer backend does not break an older front door.
	return ev, nil
}

func (t *turn) normaliseCall(c *sdk.ToolCall) (*sdk.ToolCall, error) {
	if c == nil || c.Name == "" {
		return nil, sdk.Permanentf("tool call event without a tool name")
	}
	out := *c
	if out.ID == "" {
		out.ID = "call_" + t.newID()
	}
	out.Input = bytes.TrimSpace(out.Input)
	switch {
	case len(out.Input) == 0:
		out.Input = json.RawMessage(`{}`)
	case !json.Valid(out.Input):
		return nil, sdk.Permanentf("tool call %q: input is not valid JSON", out.Name)
	}
	return &out, nil
}

func (t *turn) addText(s string) {
	if n := len(t.parts); n > 0 {
		if p, ok := t.parts[n-1].(sdk.Text); ok {
			t.parts[n-1] = sdk.Text{Text: p.Text + s}
			return
		}
	}
	t.parts, t.open = append(t.parts, sdk.Text{Text: s}), false
}

// addReasoning follows the event contract: text extends the open reasoning
// block, a signature ends it, redacted data is a block of its own.
func (t *turn) addReasoning(ev sdk.Event) {
	if ev.Redacted != "" {
		t.parts, t.open = append(t.parts, sdk.Reasoning{Redacted: ev.Redacted}), false
	}
	if ev.Text == "" && ev.Signature == "" {
		return
	}
	if !t.open {
		t.parts, t.open = append(t.parts, sdk.Reasoning{}), true
	}
	r := t.parts[len(t.parts)-1].(sdk.Reasoning)
	r.Text += ev.Text
	r.Signature = ev.Signature
	t.parts[len(t.parts)-1] = r
	t.open = ev.Signature == ""
}

// mergeUsage takes every field u reports: providers report running totals,
// so the latest report wins, and a field never reported stays nil.
func (t *turn) mergeUsage(u *sdk.Usage) {
	take := func(dst **int64, src *int64) {
		if src != nil {
			v := *src
			*dst = &v
			t.hasUsage = true
		}
	}
	take(&t.usage.InputTokens, u.InputTokens)
	take(&t.usage.OutputTokens, u.OutputTokens)
	take(&t.usage.CacheReadTokens, u.CacheReadTokens)
	take(&t.usage.CacheWriteTokens, u.CacheWriteTokens)
}

// finishReason is the reason to report: one that agrees with the content. A
// turn with tool calls that the provider ended as "stop" (some servers do)
// is reported as tool_calls, and tool_calls without a call as stop, so a
// client never skips a tool it was asked to run or waits for one that does
// not exist.
func (t *turn) finishReason() sdk.FinishReason {
	switch {
	case t.calls > 0 && (t.finish == sdk.FinishStop || t.finish == ""):
		return sdk.FinishToolCalls
	case t.calls == 0 && t.finish == sdk.FinishToolCalls:
		return sdk.FinishStop
	case t.finish == "":
		return sdk.FinishStop
	}
	return t.finish
}

// noFinishError is the failure of a Generate that returned nil without
// sending a finish event: the answer may be cut short, so it is no success.
func noFinishError() *sdk.Error {
	return &sdk.Error{Class: sdk.ClassTransient, Code: "incomplete_stream", Message: "the answer ended without a finish event"}
}
