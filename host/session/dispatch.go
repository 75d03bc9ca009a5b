package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/axonhq/axon/sdk"
)

// errGraceOver is the cause given to tool calls abandoned after a stop's
// grace period.
var errGraceOver = errors.New("session: grace period over")

// sending is one tool call about to be sent.
type sending struct {
	call sdk.ToolCall
	tool *FrozenTool
	impl Tool
}

// done is what came back from one sent call.
type done struct {
	s         sending
	res       sdk.ToolResult
	err       error
	took      time.Duration
	abandoned bool // cancelled after the grace period: the outcome stays unknown
}

// dispatch sends the tool calls of one step. First it writes, in ONE batch
// (one write, one fdatasync), an intent for every call it will send and an
// error result for every call it will not (a tool the run may not use, or
// whose block is gone). Only once that batch is durable are the calls sent,
// concurrently, each with run_id:call_id as its idempotency key; each result
// is committed as it arrives. After a stop, calls still running get the
// grace period and are then abandoned without a result: indeterminate.
func (a *actor) dispatch(rn *runner, act action) error {
	var batch []Record
	var sends []sending
	err := a.exec(func() error {
		r := a.st.byID[rn.id]
		for _, c := range act.send {
			t := r.tools[c.Name]
			var impl Tool
			if t != nil {
				impl = a.m.opts.Tools[t.Block]
			}
			if impl == nil {
				batch = append(batch, refusedCall(rn.id, act.step, c, t))
				continue
			}
			batch = append(batch, Record{Type: RecToolDispatch, RunID: rn.id, Intent: &ToolIntent{
				Step: act.step, CallID: c.ID, Name: c.Name, Block: t.Block, SideEffect: t.SideEffect, IdempotencyKey: idempotencyKey(rn.id, c.ID),
			}})
			sends = append(sends, sending{call: c, tool: t, impl: impl})
		}
		for _, c := range act.rerun {
			t := r.tools[c.Name] // class none: next() checked
			impl := a.m.opts.Tools[t.Block]
			if impl == nil {
				batch = append(batch, refusedCall(rn.id, act.step, c, t))
				continue
			}
			sends = append(sends, sending{call: c, tool: t, impl: impl})
		}
		if len(batch) == 0 {
			return nil
		}
		_, err := a.commit(batch...)
		return err
	})
	if err != nil {
		return err
	}
	if len(sends) == 0 {
		return nil
	}
	if len(sends) > len(act.rerun) {
		a.m.fp.hit("after_intents")
	}
	return a.collect(rn, act.step, a.send(rn.id, sends))
}

// calls is a batch of calls in flight.
type calls struct {
	results chan done
	n       int
	cancel  context.CancelCauseFunc
}

// send starts every call; their contexts do not derive from the run's, so
// a stop does not cut a call short before the grace period is over.
func (a *actor) send(runID string, sends []sending) *calls {
	ctx, cancel := context.WithCancelCause(context.Background())
	cs := &calls{results: make(chan done, len(sends)), n: len(sends), cancel: cancel}
	for _, s := range sends {
		go func() {
			cctx, ccancel := context.WithTimeout(ctx, a.m.opts.ToolTimeout)
			defer ccancel()
			start := time.Now()
			res, err := s.impl.Call(cctx, sdk.Invocation{CallID: s.call.ID, Name: s.call.Name, Input: s.call.Input, IdempotencyKey: idempotencyKey(runID, s.call.ID)})
			cs.results <- done{s: s, res: res, err: err, took: time.Since(start), abandoned: err != nil && context.Cause(ctx) == errGraceOver}
		}()
	}
	return cs
}

// collect commits each result as it arrives, until every call is back.
func (a *actor) collect(rn *runner, step int, cs *calls) error {
	defer cs.cancel(nil)
	stop := rn.stopped
	var grace <-chan time.Time
	var firstErr error
	for left := cs.n; left > 0; {
		select {
		case d := <-cs.results:
			left--
			if d.abandoned || firstErr != nil {
				continue
			}
			a.m.fp.hit("after_tool_return")
			err := a.exec(func() error {
				_, err := a.commit(Record{Type: RecToolResult, RunID: rn.id, Result: a.output(step, d)})
				return err
			})
			if err != nil {
				// The log is unusable: abandon the other calls at once.
				firstErr = err
				cs.cancel(errGraceOver)
				continue
			}
			a.m.fp.hit("after_tool_result")
		case <-stop:
			stop = nil
			t := time.NewTimer(a.m.opts.Grace)
			defer t.Stop()
			grace = t.C
		case <-grace:
			grace = nil
			cs.cancel(errGraceOver)
		}
	}
	return firstErr
}

// output is the ToolResult record of a call that came back. A Go error is
// an infrastructure failure (the plugin died, the call timed out): the call
// may or may not have had its effect, so the model is told the outcome is
// unknown, and the call is never sent again.
func (a *actor) output(step int, d done) *ToolOutput {
	out := &ToolOutput{Step: step, CallID: d.s.call.ID, Name: d.s.call.Name, Block: d.s.tool.Block, DurationMS: d.took.Milliseconds()}
	if d.err != nil {
		msg := d.err.Error()
		if errors.Is(d.err, context.DeadlineExceeded) {
			msg = fmt.Sprintf("the call did not return within %s", a.m.opts.ToolTimeout)
		}
		out.Error, out.IsError, out.OutcomeUnknown = msg, true, true
		out.Content = encodeParts([]sdk.Part{sdk.Text{Text: "The tool call failed and its outcome is unknown (" + msg + "). It was not retried."}})
		return out
	}
	out.IsError = d.res.IsError
	out.Content = encodeParts(capResult(d.res.Content, maxResultBytes))
	return out
}

// refusedCall answers a call the run cannot send, without an intent: no
// tool was called, so nothing can have happened.
func refusedCall(runID string, step int, c sdk.ToolCall, t *FrozenTool) Record {
	text := fmt.Sprintf("There is no tool named %q in this run.", c.Name)
	block := ""
	if t != nil {
		block = t.Block
		text = fmt.Sprintf("The tool %q is not available: its tool block %q is no longer configured.", c.Name, t.Block)
	}
	return Record{Type: RecToolResult, RunID: runID, Result: &ToolOutput{
		Step: step, CallID: c.ID, Name: c.Name, Block: block, IsError: true,
		Content: encodeParts([]sdk.Part{sdk.Text{Text: text}}),
	}}
}

// idempotencyKey is the key every dispatch of a call carries.
func idempotencyKey(runID, callID string) string { return runID + ":" + callID }
