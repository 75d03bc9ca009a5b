package session

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

// blockingTool's calls send their id on entered, then wait for release
// (and succeed) or for their context to end (and fail with its error).
func blockingTool(class sdk.SideEffect, entered chan<- string, release <-chan struct{}) *tool {
	t := newTool(class, "slow")
	t.call = func(ctx context.Context, inv sdk.Invocation) (sdk.ToolResult, error) {
		entered <- inv.CallID
		select {
		case <-release:
			return sdk.ToolResult{CallID: inv.CallID, Content: []sdk.Part{sdk.Text{Text: "finished"}}}, nil
		case <-ctx.Done():
			return sdk.ToolResult{}, ctx.Err()
		}
	}
	return t
}

func TestCancelAndShutdown(t *testing.T) {
	t.Parallel()
	twoCalls := toolSteps("done", []sdk.ToolCall{call("a", "slow", `{}`), call("b", "slow", `{}`)})
	for _, c := range []struct {
		name              string
		stop              func(r *rig, adm Admitted) // called with both calls in flight
		release           bool                       // the tool returns within the grace period
		wantReason        EndReason
		wantIndeterminate []string
	}{
		{"cancel: calls past the grace are indeterminate", cancelRun, false, EndCancelled, []string{"a", "b"}},
		{"cancel: calls that return in the grace are kept", cancelRun, true, EndCancelled, nil},
		{"SIGTERM: calls past the grace are indeterminate", shutdown, false, EndInterrupted, []string{"a", "b"}},
		{"SIGTERM: calls that return in the grace are kept", shutdown, true, EndInterrupted, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			entered, release := make(chan string, 2), make(chan struct{})
			grace := time.Hour
			if !c.release {
				grace = time.Millisecond
			}
			slow := blockingTool(sdk.SideEffectUnsafe, entered, release)
			r := newRig(t, twoCalls, map[string]Tool{"slow": slow}, func(o *Options) { o.Grace = grace })
			adm := r.send(Params{Prompt: "p", Tools: []string{"slow"}})
			<-entered
			<-entered
			if c.release {
				// Stop first, then let the calls return: the run must wait
				// for them (the grace is an hour) and keep their results.
				stopped := make(chan struct{})
				go func() { c.stop(r, adm); close(stopped) }()
				waitStopped(t, r, adm.SessionID)
				close(release)
				<-stopped
			} else {
				c.stop(r, adm)
			}
			evs := transcriptAfterStop(t, r, adm)
			end := evs[len(evs)-1]
			if end.Type != EvRunFinished || end.Reason != string(c.wantReason) {
				t.Fatalf("last event %s %q, want run_finished %q", end.Type, end.Reason, c.wantReason)
			}
			if diff := cmp.Diff(c.wantIndeterminate, end.IndeterminateToolCalls); diff != "" {
				t.Errorf("indeterminate (-want +got):\n%s", diff)
			}
			results := 0
			for _, e := range evs {
				if e.Type == EvToolResult {
					results++
				}
			}
			if want := 2 - len(c.wantIndeterminate); results != want {
				t.Errorf("%d results written, want %d", results, want)
			}
		})
	}
}

func cancelRun(r *rig, adm Admitted) {
	if _, err := r.m.Cancel(context.Background(), adm.SessionID, adm.RunID); err != nil {
		r.t.Error(err)
	}
}

func shutdown(r *rig, _ Admitted) {
	if err := r.m.Shutdown(context.Background()); err != nil {
		r.t.Error(err)
	}
}

// waitStopped returns once the session's active run has been told to stop.
func waitStopped(t *testing.T, r *rig, id string) {
	t.Helper()
	r.m.mu.Lock()
	a := r.m.actors[id]
	r.m.mu.Unlock()
	var rn *runner
	if a == nil || a.exec(func() error { rn = a.active; return nil }) != nil || rn == nil {
		t.Fatal("no active run")
	}
	<-rn.stopped
}

// transcriptAfterStop reads the whole session once its run ended, with a
// new manager when the first one was shut down.
func transcriptAfterStop(t *testing.T, r *rig, adm Admitted) []Event {
	t.Helper()
	if r.m.admitting() != nil {
		r.m = r.start()
		return r.transcript(adm.SessionID)
	}
	return r.wait(adm)
}

func TestCancelDuringModelStep(t *testing.T) {
	t.Parallel()
	entered, hold := make(chan struct{}), make(chan struct{})
	r := newRig(t, func(int, *sdk.Request) (answer, error) { return answer{text: "x", hold: hold, entered: entered}, nil }, nil)
	adm := r.send(Params{Prompt: "p"})
	<-entered
	if _, err := r.m.Cancel(context.Background(), adm.SessionID, ""); err != nil {
		t.Fatal(err)
	}
	evs := r.wait(adm)
	if diff := cmp.Diff([]string{EvRunStarted, EvUserMessage, EvRunFinished}, types(evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if end := evs[len(evs)-1]; end.Reason != string(EndCancelled) {
		t.Errorf("ended %q, want cancelled", end.Reason)
	}
	if _, err := r.m.Cancel(context.Background(), adm.SessionID, ""); err == nil {
		t.Error("cancel of a finished run succeeded")
	}
}

func TestShutdownStopsAdmission(t *testing.T) {
	t.Parallel()
	r := newRig(t, toolSteps("done"), nil)
	r.m.Shutdown(context.Background())
	if _, err := r.m.Send(context.Background(), testKey, Params{Prompt: "p"}); err != ErrShuttingDown {
		t.Errorf("send after shutdown: %v, want ErrShuttingDown", err)
	}
}
