package session

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/axonhq/axon/sdk"
)

// Event types of the control lane. Each WAL record expands to one or more
// events, numbered by their sub index within the record.
const (
	EvRunStarted   = "run_started"   // RunStarted, sub 0
	EvUserMessage  = "user_message"  // RunStarted, sub 1: the prompt
	EvModelStep    = "model_step"    // ModelStepFinished, sub 0: text, usage, provider
	EvToolCall     = "tool_call"     // ModelStepFinished, sub 1..n: one per call the model asked for
	EvToolDispatch = "tool_dispatch" // ToolDispatchIntent
	EvToolResult   = "tool_result"   // ToolResult
	EvRunFinished  = "run_finished"  // RunFinished
	EvRunPaused    = "run_paused"    // RunPaused
	EvRunResumed   = "run_resumed"   // RunResumed
)

// Event is one durable event of a session's control lane. Only the fields
// its type uses are set.
type Event struct {
	Cursor Cursor    `json:"cursor"`
	Type   string    `json:"type"`
	RunID  string    `json:"run_id"`
	At     time.Time `json:"at"`
	Step   int       `json:"step,omitempty"`

	// run_started
	IdempotencyKey string   `json:"idempotency_key,omitempty"`
	Chain          string   `json:"chain,omitempty"`
	ToolBlocks     []string `json:"tool_blocks,omitempty"`
	Tools          []string `json:"tools,omitempty"`
	MaxTurns       int      `json:"max_turns,omitempty"`
	Budget         *Budget  `json:"budget,omitempty"`
	// Models are the chain's models as admission froze them (absent for a
	// run admitted before the catalog).
	Models []ModelFacts `json:"models,omitempty"`

	// user_message, model_step, tool_result
	Text      string `json:"text,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`

	// model_step
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	Finish   string `json:"finish,omitempty"`
	Usage    *Usage `json:"usage,omitempty"`
	Trail    string `json:"trail,omitempty"`

	// tool_call, tool_dispatch, tool_result
	Call *CallInfo `json:"call,omitempty"`

	// tool_result
	IsError        bool   `json:"is_error,omitempty"`
	OutcomeUnknown bool   `json:"outcome_unknown,omitempty"`
	DurationMS     int64  `json:"duration_ms,omitempty"`
	CallError      string `json:"call_error,omitempty"`

	// run_finished, run_paused
	Reason                 string     `json:"reason,omitempty"`
	IndeterminateToolCalls []string   `json:"indeterminate_tool_calls,omitempty"`
	NotDispatched          []string   `json:"not_dispatched,omitempty"`
	Error                  *ErrorInfo `json:"error,omitempty"`
	RetryAfterMS           int64      `json:"retry_after_ms,omitempty"`
}

// CallInfo names a tool call.
type CallInfo struct {
	ID             string          `json:"id"`
	Name           string          `json:"name"`
	Input          json.RawMessage `json:"input,omitempty"`
	Block          string          `json:"block,omitempty"`
	SideEffect     sdk.SideEffect  `json:"side_effect,omitempty"`
	IdempotencyKey string          `json:"idempotency_key,omitempty"`
}

// Display lane item types.
const (
	DeltaText = "delta" // a text or reasoning delta of a model step in progress
	DeltaGap  = "gap"   // Dropped deltas were lost: this subscriber fell behind
)

// Delta is one item of the lossy display lane. Deltas are never stored or
// replayed: a subscriber sees those streamed while it is connected, and a
// gap item where it fell behind. The model_step control event carries the
// whole text.
type Delta struct {
	Type    string `json:"type"`
	RunID   string `json:"run_id,omitempty"`
	Step    int    `json:"step,omitempty"`
	Kind    string `json:"kind,omitempty"` // text or reasoning
	Text    string `json:"text,omitempty"`
	Dropped int64  `json:"dropped,omitempty"`
}

// expand turns the record at seq into its control events.
func expand(seq uint64, rec Record) ([]Event, error) {
	ev := func(sub uint32, typ string) Event {
		return Event{Cursor: Cursor{Seq: seq, Sub: sub}, Type: typ, RunID: rec.RunID, At: rec.At}
	}
	switch rec.Type {
	case RecRunStarted:
		st := rec.RunStarted
		e := ev(0, EvRunStarted)
		e.IdempotencyKey, e.Chain, e.ToolBlocks, e.MaxTurns = st.IdempotencyKey, st.Chain, st.ToolBlocks, st.MaxTurns
		e.Models = st.Models
		for _, t := range st.Tools {
			e.Tools = append(e.Tools, t.Name)
		}
		if st.Budget.Tokens != nil || st.Budget.CostUSD != nil {
			b := st.Budget
			e.Budget = &b
		}
		u := ev(1, EvUserMessage)
		u.Text = st.Prompt
		return []Event{e, u}, nil
	case RecModelStepFinished:
		ms := rec.ModelStep
		parts, err := decodeParts(ms.Message)
		if err != nil {
			return nil, err
		}
		e := ev(0, EvModelStep)
		e.Step, e.Chain, e.Provider, e.Model, e.Finish, e.Usage, e.Trail = ms.Step, ms.Chain, ms.Provider, ms.Model, ms.Finish, ms.Usage, ms.Trail
		e.Text = sdk.TextOf(parts)
		out := []Event{e}
		for _, p := range parts {
			switch v := p.(type) {
			case sdk.Reasoning:
				out[0].Reasoning += v.Text
			case sdk.ToolCall:
				c := ev(uint32(len(out)), EvToolCall)
				c.Step, c.Call = ms.Step, &CallInfo{ID: v.ID, Name: v.Name, Input: v.Input}
				out = append(out, c)
			}
		}
		return out, nil
	case RecToolDispatch:
		in := rec.Intent
		e := ev(0, EvToolDispatch)
		e.Step, e.Call = in.Step, &CallInfo{ID: in.CallID, Name: in.Name, Block: in.Block, SideEffect: in.SideEffect, IdempotencyKey: in.IdempotencyKey}
		return []Event{e}, nil
	case RecToolResult:
		out := rec.Result
		parts, err := decodeParts(out.Content)
		if err != nil {
			return nil, err
		}
		e := ev(0, EvToolResult)
		e.Step, e.Call = out.Step, &CallInfo{ID: out.CallID, Name: out.Name, Block: out.Block}
		e.Text, e.IsError, e.OutcomeUnknown, e.DurationMS, e.CallError = sdk.TextOf(parts), out.IsError, out.OutcomeUnknown, out.DurationMS, out.Error
		if out.Block == RecallBlock {
			e.Text = fmt.Sprintf("[recall result withheld: %d bytes]", len(e.Text))
		}
		return []Event{e}, nil
	case RecRunFinished:
		f := rec.Finished
		e := ev(0, EvRunFinished)
		e.Reason, e.IndeterminateToolCalls, e.NotDispatched, e.Error = string(f.Reason), f.IndeterminateToolCalls, f.NotDispatched, f.Error
		return []Event{e}, nil
	case RecRunPaused:
		p := rec.Paused
		e := ev(0, EvRunPaused)
		e.Reason, e.Error, e.RetryAfterMS = string(p.Reason), p.Error, p.RetryAfterMS
		return []Event{e}, nil
	case RecRunResumed:
		return []Event{ev(0, EvRunResumed)}, nil
	}
	return nil, fmt.Errorf("session: no events for record type %q", rec.Type)
}

// Ends reports whether e ends the run it belongs to, for now (paused) or
// for good (finished).
func (e *Event) Ends() bool { return e.Type == EvRunFinished || e.Type == EvRunPaused }
