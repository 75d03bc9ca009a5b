package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/axonhq/axon/sdk"
)

// turn checks and records the canonical events of one answer: what both
// wire formats need to know at the end (model, usage, finish, number of tool
// calls) and, for a whole (non-streamed) response, the content itself.
// Whether the stream is whole (a finish, last, and only on success) is the
// Target's guarantee (host/chain's), not checked again here.
//
// A whole answer is accumulated in linear time: the part still taking
// deltas grows in a strings.Builder and becomes a Part only when the next
// part starts or the answer is rendered. Its size is bounded by maxKept.
type turn struct {
	keepParts bool          // collect content into parts (whole responses)
	bounded   bool          // count content against maxKept without keeping it (a stream whose writer keeps it)
	maxKept   int64         // bytes of content a whole answer may keep; <= 0: no limit
	newID     func() string // names tool calls that arrive without an id

	model    string
	usage    sdk.Usage
	hasUsage bool
	finish   sdk.FinishReason
	calls    int        // tool calls so far: the next call's wire index
	parts    []sdk.Part // the finished parts (Text, Reasoning, ToolCall), in order, when keepParts
	tail     tailKind   // the kind of the part still taking deltas
	tailText strings.Builder
	tailSig  string // the signature that ended the tail reasoning block
	kept     int64  // bytes of content kept so far
}

// tailKind is the kind of part a whole answer is still extending.
type tailKind int

const (
	tailNone      tailKind = iota
	tailText               // consecutive text deltas join
	tailReasoning          // a reasoning block until its signature
)

// add checks ev, records it, and returns it normalised for the writers: a
// tool call gets an id when it has none, "{}" for empty input, and the
// Index of its arrival order, so indices are distinct and dense (0, 1, ...)
// whatever the backend numbered.
func (t *turn) add(ev sdk.Event) (sdk.Event, error) {
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
		t.finish = ev.Finish
	case sdk.EventTextDelta:
		if (t.keepParts || t.bounded) && ev.Text != "" {
			if err := t.keep(len(ev.Text)); err != nil {
				return ev, err
			}
			if t.keepParts {
				t.addText(ev.Text)
			}
		}
	case sdk.EventReasoningDelta:
		if t.keepParts || t.bounded {
			if err := t.keep(len(ev.Text) + len(ev.Signature) + len(ev.Redacted)); err != nil {
				return ev, err
			}
			if t.keepParts {
				t.addReasoning(ev)
			}
		}
	case sdk.EventToolCall:
		call, err := t.normaliseCall(ev.ToolCall)
		if err != nil {
			return ev, err
		}
		if t.keepParts || t.bounded {
			if err := t.keep(len(call.ID) + len(call.Name) + len(call.Input)); err != nil {
				return ev, err
			}
		}
		if t.keepParts {
			t.seal()
			t.parts = append(t.parts, *call)
		}
		ev.ToolCall, ev.Index = call, t.calls
		t.calls++
	}
	// Event types this package does not know are passed on; the writers
	// skip them, so a newer backend does not break an older front door.
	return ev, nil
}

// keep accounts for n more bytes of a whole answer, refusing them once the
// answer would exceed its limit.
func (t *turn) keep(n int) error {
	t.kept += int64(n)
	if t.maxKept > 0 && t.kept > t.maxKept {
		return &answerTooLargeError{limit: t.maxKept, streamed: !t.keepParts}
	}
	return nil
}

// answerTooLargeError is the failure of a whole answer that outgrew its
// limit. A stream has no such limit, as it keeps nothing, unless its
// writer keeps it (a Responses stream repeats the whole answer at its end).
type answerTooLargeError struct {
	limit    int64
	streamed bool
}

func (e *answerTooLargeError) Error() string {
	if e.streamed {
		return fmt.Sprintf("the answer exceeded the limit of %d bytes that a Responses API stream repeats whole at its end; ask for a shorter answer", e.limit)
	}
	return fmt.Sprintf("the answer exceeded the limit of %d bytes for a response that is not streamed; "+
		"ask for a shorter answer or send \"stream\": true", e.limit)
}

// content is the answer's parts in order, for the whole-response writers.
func (t *turn) content() []sdk.Part {
	t.seal()
	return t.parts
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
	if t.tail != tailText {
		t.seal()
		t.tail = tailText
	}
	t.write(s)
}

// addReasoning follows the event contract: text extends the open reasoning
// block, a signature ends it, redacted data is a block of its own.
func (t *turn) addReasoning(ev sdk.Event) {
	if ev.Redacted != "" {
		t.seal()
		t.parts = append(t.parts, sdk.Reasoning{Redacted: ev.Redacted})
	}
	if ev.Text == "" && ev.Signature == "" {
		return
	}
	if t.tail != tailReasoning {
		t.seal()
		t.tail = tailReasoning
	}
	t.write(ev.Text)
	if ev.Signature != "" {
		t.tailSig = ev.Signature
		t.seal()
	}
}

// write appends s to the tail part, doubling the builder when it is full:
// append grows a large slice by a quarter, which would copy a long answer
// about five times over.
func (t *turn) write(s string) {
	if t.tailText.Cap()-t.tailText.Len() < len(s) {
		t.tailText.Grow(max(len(s), t.tailText.Len()))
	}
	t.tailText.WriteString(s)
}

// seal turns the part still taking deltas into a finished Part.
func (t *turn) seal() {
	switch t.tail {
	case tailNone:
		return
	case tailText:
		t.parts = append(t.parts, sdk.Text{Text: t.tailText.String()})
	case tailReasoning:
		t.parts = append(t.parts, sdk.Reasoning{Text: t.tailText.String(), Signature: t.tailSig})
	}
	t.tailText.Reset() // the String above keeps its memory; the builder starts afresh
	t.tail, t.tailSig = tailNone, ""
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
	take(&t.usage.ReasoningTokens, u.ReasoningTokens)
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
