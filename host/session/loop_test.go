package session

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

func TestRunCallsToolsThenCompletes(t *testing.T) {
	t.Parallel()
	notes := newTool(sdk.SideEffectUnsafe, "append_note")
	r := newRig(t, toolSteps("all done",
		[]sdk.ToolCall{call("c1", "append_note", `{"text":"a"}`), call("c2", "append_note", `{"text":"b"}`)},
		[]sdk.ToolCall{call("c3", "append_note", `{"text":"c"}`)},
	), map[string]Tool{"notes": notes})

	adm := r.send(Params{Prompt: "take notes", Tools: []string{"notes"}})
	evs := r.wait(adm)

	want := []string{
		EvRunStarted, EvUserMessage,
		EvModelStep, EvToolCall, EvToolCall, EvToolDispatch, EvToolDispatch, EvToolResult, EvToolResult,
		EvModelStep, EvToolCall, EvToolDispatch, EvToolResult,
		EvModelStep, EvRunFinished,
	}
	if diff := cmp.Diff(want, types(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if last := evs[len(evs)-1]; last.Reason != string(EndCompleted) {
		t.Errorf("run ended %q, want completed", last.Reason)
	}
	var keys []string
	for _, inv := range notes.invocations() {
		keys = append(keys, inv.IdempotencyKey)
	}
	slices.Sort(keys)
	wantKeys := []string{adm.RunID + ":c1", adm.RunID + ":c2", adm.RunID + ":c3"}
	if diff := cmp.Diff(wantKeys, keys); diff != "" {
		t.Errorf("idempotency keys (-want +got):\n%s", diff)
	}
	// The third model call saw the whole conversation, results in call order.
	reqs := r.model.requests()
	got := roles(reqs[len(reqs)-1].Messages)
	if diff := cmp.Diff([]sdk.Role{sdk.RoleUser, sdk.RoleAssistant, sdk.RoleTool, sdk.RoleAssistant, sdk.RoleTool}, got); diff != "" {
		t.Errorf("conversation roles (-want +got):\n%s", diff)
	}
	if tm := reqs[len(reqs)-1].Messages[2]; len(tm.Parts) != 2 || tm.Parts[0].(sdk.ToolResult).CallID != "c1" {
		t.Errorf("tool message %+v, want results of c1 then c2", tm.Parts)
	}
	if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Name != "append_note" {
		t.Errorf("model offered %+v, want append_note", reqs[0].Tools)
	}
}

func roles(msgs []sdk.Message) []sdk.Role {
	var out []sdk.Role
	for _, m := range msgs {
		out = append(out, m.Role)
	}
	return out
}

// All intents of one step go out in one batch: one write, one fdatasync.
func TestIntentsOfAStepShareOneBatch(t *testing.T) {
	t.Parallel()
	notes := newTool(sdk.SideEffectUnsafe, "append_note")
	r := newRig(t, toolSteps("done",
		[]sdk.ToolCall{call("a", "append_note", `{}`), call("b", "append_note", `{}`), call("c", "append_note", `{}`), call("x", "no_such_tool", `{}`)},
	), map[string]Tool{"notes": notes})
	adm := r.send(Params{Prompt: "p", Tools: []string{"notes"}})
	r.wait(adm)
	r.m.Shutdown(context.Background())

	frames := readFrames(t, r.dir+"/"+adm.SessionID+"/wal")
	var batch []frameInfo
	for _, f := range frames {
		rec, err := DecodeRecord(f.payload)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Type == RecToolDispatch || (rec.Type == RecToolResult && rec.Result.CallID == "x") {
			batch = append(batch, f)
		}
	}
	if len(batch) != 4 {
		t.Fatalf("%d intent and refusal frames, want 4", len(batch))
	}
	for i, f := range batch {
		if f.count != 4 || f.index != uint32(i) || f.seq != batch[0].seq+uint64(i) {
			t.Errorf("frame seq %d is %d of a batch of %d, want %d of 4", f.seq, f.index, f.count, i)
		}
	}
	if n := len(notes.invocations()); n != 3 {
		t.Errorf("%d tool calls, want 3 (the unknown tool is refused without a call)", n)
	}
}

func TestStopConditions(t *testing.T) {
	t.Parallel()
	always := func(step int, _ *sdk.Request) (answer, error) {
		return answer{text: "again", calls: []sdk.ToolCall{call("c", "now", `{}`)}, usage: usage(100, 20)}, nil
	}
	noUsage := func(step int, _ *sdk.Request) (answer, error) {
		return answer{calls: []sdk.ToolCall{call("c", "now", `{}`)}}, nil
	}
	for _, c := range []struct {
		name       string
		script     func(int, *sdk.Request) (answer, error)
		params     Params
		wantReason EndReason
		wantSteps  int
		wantCalls  int
	}{
		{"max turns", always, Params{MaxTurns: intp(3)}, EndMaxTurns, 3, 2},
		{"token budget", always, Params{Budget: Budget{Tokens: new(int64(200))}}, EndBudget, 2, 1},
		{"budget needs reported usage", noUsage, Params{Budget: Budget{Tokens: new(int64(1000))}}, EndBudget, 1, 0},
		{"no tool calls", toolSteps("done"), Params{}, EndCompleted, 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			clock := newTool(sdk.SideEffectNone, "now")
			r := newRig(t, c.script, map[string]Tool{"clock": clock})
			c.params.Prompt, c.params.Tools = "go", []string{"clock"}
			adm := r.send(c.params)
			evs := r.wait(adm)
			end := evs[len(evs)-1]
			if end.Reason != string(c.wantReason) {
				t.Fatalf("ended %q (%+v), want %q", end.Reason, end.Error, c.wantReason)
			}
			steps := 0
			for _, e := range evs {
				if e.Type == EvModelStep {
					steps++
				}
			}
			if steps != c.wantSteps || len(clock.invocations()) != c.wantCalls {
				t.Errorf("%d steps and %d calls, want %d and %d", steps, len(clock.invocations()), c.wantSteps, c.wantCalls)
			}
			if c.wantReason != EndCompleted && len(end.NotDispatched) != 1 {
				t.Errorf("not_dispatched %v, want the last step's call", end.NotDispatched)
			}
		})
	}
}

func TestUniqueCallIDs(t *testing.T) {
	t.Parallel()
	// A model that names its calls call_0 in every step, or not at all.
	clock := newTool(sdk.SideEffectNone, "now")
	r := newRig(t, toolSteps("done",
		[]sdk.ToolCall{call("call_0", "now", `{}`), call("", "now", `{}`)},
		[]sdk.ToolCall{call("call_0", "now", `{}`), call("call_0", "now", `{}`)},
	), map[string]Tool{"clock": clock})
	r.wait(r.send(Params{Prompt: "p", Tools: []string{"clock"}}))
	var ids []string
	for _, inv := range clock.invocations() {
		ids = append(ids, inv.CallID)
	}
	slices.Sort(ids)
	want := []string{"call_0", "call_0_s2_0", "call_0_s2_1", "call_s1_1"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("call ids (-want +got):\n%s", diff)
	}
}

func TestToolFailures(t *testing.T) {
	t.Parallel()
	boom := newTool(sdk.SideEffectUnsafe, "boom")
	boom.call = func(context.Context, sdk.Invocation) (sdk.ToolResult, error) {
		return sdk.ToolResult{}, sdk.ErrPluginExited
	}
	r := newRig(t, toolSteps("done", []sdk.ToolCall{call("b", "boom", `{}`)}), map[string]Tool{"b": boom})
	evs := r.wait(r.send(Params{Prompt: "p", Tools: []string{"b"}}))
	var res Event
	for _, e := range evs {
		if e.Type == EvToolResult {
			res = e
		}
	}
	if !res.IsError || !res.OutcomeUnknown || !strings.Contains(res.Text, "outcome is unknown") {
		t.Errorf("result %+v, want an error with an unknown outcome", res)
	}
	if end := evs[len(evs)-1]; end.Reason != string(EndCompleted) {
		t.Errorf("run ended %q: a failed call is a result the model sees, the run goes on", end.Reason)
	}
	if n := len(boom.invocations()); n != 1 {
		t.Errorf("tool called %d times, want once (never retried)", n)
	}
}

func TestPauseAndResume(t *testing.T) {
	t.Parallel()
	down := true
	var calls int
	script := func(step int, _ *sdk.Request) (answer, error) {
		calls++
		if down {
			return answer{}, &sdk.Error{Class: sdk.ClassTransient, Code: "overloaded", Message: "try later", Status: 529}
		}
		return answer{text: "back"}, nil
	}
	r := newRig(t, script, nil)
	adm := r.send(Params{Prompt: "hello"})
	evs := r.wait(adm)
	p := evs[len(evs)-1]
	if p.Type != EvRunPaused || p.Reason != string(PauseModelUnavailable) || p.Error == nil || p.Error.Class != "transient" {
		t.Fatalf("last event %+v, want run_paused model_unavailable", p)
	}
	if _, err := r.m.Send(context.Background(), testKey, Params{Prompt: "other"}); !errors.Is(err, ErrPaused) {
		t.Fatalf("send while paused: %v, want ErrPaused", err)
	}
	down = false
	if _, err := r.m.Resume(context.Background(), adm.SessionID, ""); err != nil {
		t.Fatal(err)
	}
	evs = r.wait(Admitted{SessionID: adm.SessionID, RunID: adm.RunID, After: p.Cursor})
	if diff := cmp.Diff([]string{EvRunResumed, EvModelStep, EvRunFinished}, types(evs)); diff != "" {
		t.Errorf("after resume (-want +got):\n%s", diff)
	}
	if _, err := r.m.Resume(context.Background(), adm.SessionID, ""); !errors.Is(err, ErrNoOpenRun) {
		t.Errorf("resume of a finished run: %v, want ErrNoOpenRun", err)
	}
}

func TestRefusalFinishes(t *testing.T) {
	t.Parallel()
	r := newRig(t, func(int, *sdk.Request) (answer, error) {
		return answer{}, &sdk.Error{Class: sdk.ClassContentFilter, Message: "no"}
	}, nil)
	evs := r.wait(r.send(Params{Prompt: "p"}))
	if end := evs[len(evs)-1]; end.Type != EvRunFinished || end.Reason != string(EndRefused) {
		t.Errorf("last event %+v, want run_finished refused", end)
	}
}
