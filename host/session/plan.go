package session

import (
	"github.com/axonhq/axon/sdk"
)

// actionKind is what a run does next.
type actionKind int

const (
	actNone     actionKind = iota // the run is not running: nothing to do
	actModel                      // call the model for step n
	actDispatch                   // send tool calls
	actFinish                     // write RunFinished
)

type action struct {
	kind actionKind
	step int
	// send are calls of the step never sent: their intents (or, for a tool
	// the run may not call, an error result) are written in one batch.
	send []sdk.ToolCall
	// rerun are calls of class none whose intent is durable but whose
	// result is not (a crash): they are sent again, with no second intent.
	rerun []sdk.ToolCall
	end   *RunEnd
}

// next decides a run's next move from its durable state alone. The loop
// asks it at every boundary, and a resumed run asks it first: that is the
// whole of recovery.
//
//   - No step yet: call the model.
//   - The last step asked for no tools: completed.
//   - Its calls were not sent yet: stop for the budget or max_turns
//     (listing them as not dispatched), else send them.
//   - A call was sent and has no result: it is indeterminate. Unless its
//     tool is of class none (then it is sent again), the run ends
//     interrupted naming it, and it is never sent again.
//   - Every call has its result: stop for the budget or max_turns, else call
//     the model again.
func (r *runState) next() action {
	if r.status != StatusRunning {
		return action{kind: actNone}
	}
	st := r.lastStep()
	if st == nil {
		return r.modelOr(1)
	}
	if len(st.calls) == 0 {
		return finish(&RunEnd{Reason: EndCompleted})
	}
	inFlight, unsent := st.unresolved()
	if len(inFlight) == 0 && len(unsent) == len(st.calls) {
		if end := r.limit(); end != nil {
			end.NotDispatched = callIDs(unsent)
			return finish(end)
		}
		return action{kind: actDispatch, step: st.n, send: unsent}
	}
	var indeterminate, rerun []sdk.ToolCall
	for _, c := range inFlight {
		if r.sideEffect(c.Name) == sdk.SideEffectNone {
			rerun = append(rerun, c)
		} else {
			indeterminate = append(indeterminate, c)
		}
	}
	if len(indeterminate) > 0 {
		return finish(&RunEnd{Reason: EndInterrupted, IndeterminateToolCalls: callIDs(indeterminate), NotDispatched: callIDs(unsent)})
	}
	if len(rerun) > 0 || len(unsent) > 0 {
		return action{kind: actDispatch, step: st.n, send: unsent, rerun: rerun}
	}
	return r.modelOr(st.n + 1)
}

// modelOr calls the model for step n unless a limit stops the run first.
func (r *runState) modelOr(n int) action {
	if end := r.limit(); end != nil {
		return finish(end)
	}
	return action{kind: actModel, step: n}
}

// limit is the end a budget or max_turns imposes now, nil when none does.
func (r *runState) limit() *RunEnd {
	if over, why := r.start.Budget.exhausted(r.spent); over {
		return &RunEnd{Reason: EndBudget, Error: &ErrorInfo{Message: why}}
	}
	if len(r.steps) >= r.start.MaxTurns {
		return &RunEnd{Reason: EndMaxTurns}
	}
	return nil
}

// stopEnd is the end of a run stopped by its caller (cancelled) or by the
// host (interrupted): calls sent without a result are indeterminate, calls
// not sent are listed as such.
func (r *runState) stopEnd(why EndReason) *RunEnd {
	end := &RunEnd{Reason: why}
	if st := r.lastStep(); st != nil {
		inFlight, unsent := st.unresolved()
		end.IndeterminateToolCalls, end.NotDispatched = callIDs(inFlight), callIDs(unsent)
	}
	return end
}

// sideEffect is the frozen class of the named tool; a tool the run does not
// know, or one that declared no class, is unsafe.
func (r *runState) sideEffect(name string) sdk.SideEffect {
	t := r.tools[name]
	if t == nil {
		return sdk.SideEffectUnsafe
	}
	return sideEffectOrUnsafe(t.SideEffect)
}

func sideEffectOrUnsafe(s sdk.SideEffect) sdk.SideEffect {
	switch s {
	case sdk.SideEffectNone, sdk.SideEffectIdempotent:
		return s
	}
	return sdk.SideEffectUnsafe
}

func finish(end *RunEnd) action { return action{kind: actFinish, end: end} }

func callIDs(calls []sdk.ToolCall) []string {
	if len(calls) == 0 {
		return nil
	}
	ids := make([]string, len(calls))
	for i, c := range calls {
		ids[i] = c.ID
	}
	return ids
}
