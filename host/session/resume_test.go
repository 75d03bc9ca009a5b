package session

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

// crashed writes recs into session testKey of dir as a process that died
// right after them would have left it.
func crashed(t *testing.T, dir string, recs ...Record) string {
	t.Helper()
	writeSession(t, dir, testKey, recs...)
	return testKey.ID()
}

func TestResumeAfterCrash(t *testing.T) {
	t.Parallel()
	const run = "run_1"
	tools := []FrozenTool{
		{Block: "notes", Name: "append_note", SideEffect: sdk.SideEffectUnsafe},
		{Block: "clock", Name: "now", SideEffect: sdk.SideEffectNone},
	}
	calls := []sdk.ToolCall{call("n1", "append_note", `{"text":"x"}`), call("t1", "now", `{}`)}
	started := Record{Type: RecRunStarted, RunID: run, RunStarted: &RunStarted{IdempotencyKey: "k", Prompt: "p", Chain: "default", ToolBlocks: []string{"notes", "clock"}, Tools: tools, MaxTurns: 5}}
	step := Record{Type: RecModelStepFinished, RunID: run, ModelStep: &ModelStep{Step: 1, Chain: "default", Provider: "fake", Message: encodeParts([]sdk.Part{calls[0], calls[1]})}}
	intent := func(c sdk.ToolCall, block string, se sdk.SideEffect) Record {
		return Record{Type: RecToolDispatch, RunID: run, Intent: &ToolIntent{Step: 1, CallID: c.ID, Name: c.Name, Block: block, SideEffect: se, IdempotencyKey: run + ":" + c.ID}}
	}
	result := func(c sdk.ToolCall, block string) Record {
		return Record{Type: RecToolResult, RunID: run, Result: &ToolOutput{Step: 1, CallID: c.ID, Name: c.Name, Block: block, Content: encodeParts([]sdk.Part{sdk.Text{Text: "done"}})}}
	}
	noteIntent, clockIntent := intent(calls[0], "notes", sdk.SideEffectUnsafe), intent(calls[1], "clock", sdk.SideEffectNone)
	noteResult, clockResult := result(calls[0], "notes"), result(calls[1], "clock")

	for _, c := range []struct {
		name              string
		recs              []Record
		wantReason        EndReason
		wantIndeterminate []string
		wantNotes         int // append_note calls made after the restart
		wantClock         int
	}{
		{"admitted, no model step yet", []Record{started}, EndCompleted, nil, 1, 1},
		{"model step durable, nothing sent", []Record{started, step}, EndCompleted, nil, 1, 1},
		{"intents durable, no results", []Record{started, step, noteIntent, clockIntent}, EndInterrupted, []string{"n1"}, 0, 0},
		{"unsafe call answered, class none call lost", []Record{started, step, noteIntent, clockIntent, noteResult}, EndCompleted, nil, 0, 1},
		{"class none call answered, unsafe call lost", []Record{started, step, noteIntent, clockIntent, clockResult}, EndInterrupted, []string{"n1"}, 0, 0},
		{"every call answered", []Record{started, step, noteIntent, clockIntent, noteResult, clockResult}, EndCompleted, nil, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			notes, clock := newTool(sdk.SideEffectUnsafe, "append_note"), newTool(sdk.SideEffectNone, "now")
			r := &rig{t: t, dir: t.TempDir(), tools: map[string]Tool{"notes": notes, "clock": clock},
				model: &model{script: toolSteps("finished", calls)}}
			id := crashed(t, r.dir, c.recs...)
			r.m = r.start()
			if err := r.m.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			evs := r.wait(Admitted{SessionID: id, RunID: run, After: After(0)})
			end := evs[len(evs)-1]
			if end.Type != EvRunFinished || end.Reason != string(c.wantReason) {
				t.Fatalf("last event %s %q, want run_finished %q", end.Type, end.Reason, c.wantReason)
			}
			if diff := cmp.Diff(c.wantIndeterminate, end.IndeterminateToolCalls); diff != "" {
				t.Errorf("indeterminate calls (-want +got):\n%s", diff)
			}
			if n, k := len(notes.invocations()), len(clock.invocations()); n != c.wantNotes || k != c.wantClock {
				t.Errorf("after restart: %d append_note and %d now calls, want %d and %d", n, k, c.wantNotes, c.wantClock)
			}
			intents := map[string]int{}
			for _, e := range evs {
				if e.Type == EvToolDispatch {
					intents[e.Call.ID]++
				}
			}
			for id, n := range intents {
				if n > 1 {
					t.Errorf("call %s has %d intents: sent again", id, n)
				}
			}
		})
	}
}

// A session whose log holds records the loop could not have written is
// refused, not guessed at.
func TestInconsistentLogIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	started := Record{Type: RecRunStarted, RunID: "r", RunStarted: &RunStarted{IdempotencyKey: "k", Prompt: "p", Chain: "default", MaxTurns: 3,
		Tools: []FrozenTool{{Block: "b", Name: "t", SideEffect: sdk.SideEffectUnsafe}}}}
	step := Record{Type: RecModelStepFinished, RunID: "r", ModelStep: &ModelStep{Step: 1, Message: encodeParts([]sdk.Part{call("c", "t", `{}`)})}}
	intent := Record{Type: RecToolDispatch, RunID: "r", Intent: &ToolIntent{Step: 1, CallID: "c", Name: "t", Block: "b"}}
	crashed(t, dir, started, step, intent, intent)
	m, err := New(Options{Dir: dir, Chains: oneHop(&model{}), LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	if _, err := m.Send(context.Background(), testKey, Params{Prompt: "p2"}); err == nil {
		t.Fatal("a log with two intents for one call opened")
	}
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := m.Sessions(); len(s) != 1 || s[0].Error == "" {
		t.Errorf("sessions %+v, want one listed with its error", s)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	t.Parallel()
	rec := Record{Type: RecModelStepFinished, V: recordVersion, RunID: "r", At: time.Unix(5, 0).UTC(), ModelStep: &ModelStep{
		Step: 2, Chain: "default", Provider: "p", Model: "m", Finish: "tool_calls", Usage: &Usage{OutputTokens: sdk.Tokens(0)},
		Message: encodeParts([]sdk.Part{
			sdk.Reasoning{Text: "hmm", Signature: "sig"}, sdk.Text{Text: "hi"},
			sdk.ToolCall{ID: "c", Name: "t", Input: json.RawMessage(`{"a":1}`)},
			sdk.ToolResult{CallID: "c", Content: []sdk.Part{sdk.Text{Text: "r"}, sdk.Image{MediaType: "image/png", Data: []byte{1, 2}}}, IsError: true},
		}),
	}}
	b, err := encodeRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rec, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if got.ModelStep.Usage.InputTokens != nil || *got.ModelStep.Usage.OutputTokens != 0 {
		t.Errorf("usage %+v: an absent count must stay absent, a zero stay zero", got.ModelStep.Usage)
	}
	for _, bad := range []string{`{"type":"run_started","v":1,"run_id":"r"}`, `{"type":"nope","v":1,"run_id":"r"}`, `{"type":"run_resumed","v":2,"run_id":"r"}`, `{"type":"run_resumed","v":1}`} {
		if _, err := DecodeRecord([]byte(bad)); err == nil {
			t.Errorf("DecodeRecord(%s) accepted", bad)
		}
	}
}
