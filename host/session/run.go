package session

import (
	"context"
	"errors"
	"sync"

	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/sdk"
)

// runner is the handle of one run goroutine.
type runner struct {
	id     string
	ctx    context.Context // model calls; cancelled by stop
	cancel context.CancelFunc
	// stopped is closed by stop; why says who stopped the run.
	stopped chan struct{}
	why     EndReason
	once    sync.Once
	done    chan struct{}
	// idle is set (on the driver goroutine, before its last exec) when
	// the driver returned because the run was no longer running: paused,
	// or already sealed. Only then may the actor start a new driver for a
	// run resumed meanwhile.
	idle bool
}

func newRunner(id string) *runner {
	ctx, cancel := context.WithCancel(context.Background())
	return &runner{id: id, ctx: ctx, cancel: cancel, stopped: make(chan struct{}), done: make(chan struct{})}
}

// stop ends the run at its next boundary: a model call in progress is
// cancelled at once, tool calls in flight get the grace period.
func (rn *runner) stop(why EndReason) {
	rn.once.Do(func() {
		rn.why = why
		close(rn.stopped)
		rn.cancel()
	})
}

func (rn *runner) stopReason() (EndReason, bool) {
	select {
	case <-rn.stopped:
		return rn.why, true
	default:
		return "", false
	}
}

// drive runs the loop of one run until it finishes or pauses, or its log
// fails (then the run stays open on disk and resumes on the next open).
// Each turn it asks the durable state what to do next (runState.next), so
// a fresh run and a resumed one take the same path.
func (a *actor) drive(rn *runner) {
	for {
		var act action
		var req *sdk.Request
		var start RunStarted
		err := a.exec(func() error {
			r := a.st.byID[rn.id]
			if r == nil {
				return errActorClosed
			}
			start = r.start
			if why, ok := rn.stopReason(); ok && r.status == StatusRunning {
				act = finish(r.stopEnd(why))
			} else {
				act = r.next()
			}
			if act.kind == actModel {
				req = &sdk.Request{System: sdk.SystemPrompt(r.start.System), Messages: a.st.conversation(), Tools: toolSpecs(r.start.Tools)}
			}
			return nil
		})
		if err != nil {
			a.stopped(rn, err)
			return
		}
		switch act.kind {
		case actNone:
			rn.idle = true
			return
		case actFinish:
			if err := a.finish(rn.id, act.end); err != nil {
				a.stopped(rn, err)
			}
			return
		case actModel:
			err = a.modelStep(rn, start, act.step, req)
		case actDispatch:
			err = a.dispatch(rn, act)
		}
		if err != nil {
			a.stopped(rn, err)
			return
		}
	}
}

// stopped logs why the driver of rn gave up. A failed log was logged once
// when it failed (Manager.logFailed); the driver only notes it.
func (a *actor) stopped(rn *runner, err error) {
	if errors.Is(err, ErrLogFailed) {
		a.m.log.Debug("run driver stopped: the session log failed", "session", a.id, "run", rn.id)
		return
	}
	a.m.log.Error("run stopped", "session", a.id, "run", rn.id, "error", err)
}

// finish writes RunFinished.
func (a *actor) finish(runID string, end *RunEnd) error {
	a.m.fp.hit("before_run_finished")
	err := a.exec(func() error {
		_, err := a.commit(Record{Type: RecRunFinished, RunID: runID, Finished: end})
		return err
	})
	if err == nil {
		a.m.fp.hit("after_run_finished")
		a.m.log.Info("run finished", "session", a.id, "run", runID, "reason", end.Reason, "indeterminate", len(end.IndeterminateToolCalls))
	}
	return err
}

// modelStep runs step n through the run's chain and commits the answer as
// ModelStepFinished. A chain that cannot answer pauses the run (it may be
// resumed when a provider is back); a refusal finishes it. A frozen model
// no longer served (ModelError) pauses the run before any call: it is
// never moved to another model. A stop cancels the call and leaves the
// decision to the loop. The returned error is a failed commit only.
func (a *actor) modelStep(rn *runner, start RunStarted, n int, req *sdk.Request) error {
	ch, err := a.m.runChain(rn.ctx, rn.id, start)
	var me *ModelError
	if errors.As(err, &me) {
		a.m.log.Warn("run paused: its model is no longer served", "session", a.id, "run", rn.id, "provider", me.Provider, "model", me.Model, "why", me.Why)
		return a.exec(func() error {
			_, err := a.commit(Record{Type: RecRunPaused, RunID: rn.id, Paused: &RunPause{Reason: PauseModelUnservable, Error: &ErrorInfo{Code: "model_unservable", Message: me.Error()}}})
			return err
		})
	}
	if err != nil {
		return a.finish(rn.id, &RunEnd{Reason: EndFailed, Error: &ErrorInfo{Code: "no_chain", Message: err.Error()}})
	}
	sink := &stepSink{display: a.lanes.show, runID: rn.id, step: n}
	res, err := ch.Run(rn.ctx, req, sink, nil)
	if err != nil {
		if _, stopped := rn.stopReason(); stopped {
			return nil
		}
		return a.exec(func() error {
			_, err := a.commit(stepFailure(rn.id, res, err))
			return err
		})
	}
	err = a.exec(func() error {
		r := a.st.byID[rn.id]
		ms := &ModelStep{
			Step: n, Message: encodeParts(sink.parts(r.usedCallIDs(), res.Provider)), Finish: string(res.Finish),
			Chain: res.Chain, Provider: res.Provider, Model: res.Model, Usage: usageOf(res.Usage), Trail: res.Trail.String(),
		}
		_, err := a.commit(Record{Type: RecModelStepFinished, RunID: rn.id, ModelStep: ms})
		return err
	})
	if err == nil {
		a.m.fp.hit("after_model_step")
	}
	return err
}

// stepFailure is the record a failed model step leads to: RunFinished
// (refused) for a content filter refusal, else RunPaused.
func stepFailure(runID string, res *chain.Result, err error) Record {
	info := &ErrorInfo{Class: string(sdk.ClassOf(err)), Message: err.Error()}
	var se *sdk.Error
	if errors.As(err, &se) {
		info.Code = se.Code
	}
	if res != nil {
		info.Trail = res.Trail.String()
	}
	var ex *chain.ExhaustedError
	if errors.As(err, &ex) && sdk.ClassOf(err) == sdk.ClassContentFilter {
		return Record{Type: RecRunFinished, RunID: runID, Finished: &RunEnd{Reason: EndRefused, Error: info}}
	}
	p := &RunPause{Reason: PauseModelUnavailable, Error: info}
	if ex != nil {
		p.RetryAfterMS = ex.RetryAfter().Milliseconds()
	}
	return Record{Type: RecRunPaused, RunID: runID, Paused: p}
}
