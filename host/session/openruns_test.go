package session

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// openRunRecs is a run a crash left open: its one unsafe call has a durable
// intent and no result, so recovery ends it interrupted without a model call.
func openRunRecs(run string) []Record {
	tools := []FrozenTool{{Block: "notes", Name: "append_note", SideEffect: sdk.SideEffectUnsafe}}
	c := call("n1", "append_note", `{"text":"x"}`)
	return []Record{
		{Type: RecRunStarted, RunID: run, RunStarted: &RunStarted{IdempotencyKey: "k-" + run, Prompt: "p", Chain: "default", ToolBlocks: []string{"notes"}, Tools: tools, MaxTurns: 5}},
		{Type: RecModelStepFinished, RunID: run, ModelStep: &ModelStep{Step: 1, Chain: "default", Provider: "fake", Message: encodeParts([]sdk.Part{c})}},
		{Type: RecToolDispatch, RunID: run, Intent: &ToolIntent{Step: 1, CallID: c.ID, Name: c.Name, Block: "notes", SideEffect: sdk.SideEffectUnsafe, IdempotencyKey: run + ":" + c.ID}},
	}
}

// commitOpenRun writes an open run into session key through m's actor, as
// a live run does (index entry first), and lets the session go unsealed.
func commitOpenRun(t *testing.T, m *Manager, key Key, run string) {
	t.Helper()
	a, err := m.acquire(key.ID(), &key)
	if err != nil {
		t.Fatal(err)
	}
	defer m.release(a)
	for _, rec := range openRunRecs(run) {
		if err := a.exec(func() error { _, err := a.commit(rec); return err }); err != nil {
			t.Fatal(err)
		}
	}
}

// lastRun reads session id's last run from its log, as `axon sessions` does.
func lastRun(t *testing.T, dir, id string) *RunInfo {
	t.Helper()
	list, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.ID == id {
			if s.Error != "" {
				t.Fatalf("session %s: %s", id, s.Error)
			}
			return s.LastRun()
		}
	}
	t.Fatalf("session %s not listed", id)
	return nil
}

// The open-run index deleted or damaged: the restart still lists every
// session, recovers the run the crash left open at Start (not on first use:
// Shutdown seals only runs something resumed), serves new prompts, and
// rebuilds the index.
func TestOpenRunIndexRebuilt(t *testing.T) {
	t.Parallel()
	crashedKey := Key{ProjectRoot: "/tmp/project", Harness: "test", Session: "crashed"}
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, idx string)
	}{
		{"deleted", func(t *testing.T, idx string) {
			if err := os.RemoveAll(idx); err != nil {
				t.Fatal(err)
			}
		}},
		{"completeness marker garbled", func(t *testing.T, idx string) {
			if err := os.WriteFile(filepath.Join(idx, indexComplete), []byte("\x00garbage"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(idx, crashedKey.ID())); err != nil {
				t.Fatal(err)
			}
		}},
		{"a file in its place", func(t *testing.T, idx string) {
			if err := os.RemoveAll(idx); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(idx, []byte("not a directory"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, func(int, *sdk.Request) (answer, error) { return answer{text: "ok"}, nil }, nil)
			if err := r.m.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			r.wait(r.send(Params{Prompt: "hello"}))
			commitOpenRun(t, r.m, crashedKey, "run_open")
			if err := r.m.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			idx := filepath.Join(r.dir, openRunsDir)
			if _, err := os.Stat(filepath.Join(idx, crashedKey.ID())); err != nil {
				t.Fatalf("the open run has no index entry: %v", err)
			}
			if _, err := os.Stat(filepath.Join(idx, testKey.ID())); err == nil {
				t.Fatal("the finished run's index entry was not removed")
			}
			c.damage(t, idx)

			r.m = r.start()
			if err := r.m.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := r.m.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := lastRun(t, r.dir, crashedKey.ID()); got.Status != StatusFinished || got.Reason != EndInterrupted {
				t.Fatalf("the open run is %s %s after the restart, want finished interrupted", got.Status, got.Reason)
			}
			if v, err := os.ReadFile(filepath.Join(idx, indexComplete)); err != nil || string(v) != string(indexVersion) {
				t.Fatalf("index not rebuilt: %q, %v", v, err)
			}

			r.m = r.start()
			if err := r.m.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			list := r.m.Sessions()
			if len(list) != 2 {
				t.Fatalf("%d sessions listed, want 2: %+v", len(list), list)
			}
			evs := r.wait(r.send(Params{Prompt: "again"}))
			if end := evs[len(evs)-1]; end.Type != EvRunFinished || end.Reason != string(EndCompleted) {
				t.Fatalf("a prompt after the restart ended %s %q, want completed", end.Type, end.Reason)
			}
		})
	}
}

// An index entry whose session is gone is dropped; a session directory the
// index does not name (copied in, written by an older axon) is still
// listed, and its open run recovered on first use.
func TestOpenRunIndexStaleEntries(t *testing.T) {
	t.Parallel()
	r := newRig(t, func(int, *sdk.Request) (answer, error) { return answer{text: "ok"}, nil }, nil)
	if err := r.m.Start(context.Background()); err != nil { // writes the (empty) index
		t.Fatal(err)
	}
	gone := Key{ProjectRoot: "/tmp/project", Harness: "test", Session: "gone"}.ID()
	if err := r.m.markOpen(gone); err != nil {
		t.Fatal(err)
	}
	id := crashed(t, r.dir, openRunRecs("run_1")...) // no index entry
	r.m.Shutdown(context.Background())

	r.m = r.start()
	if err := r.m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, openRunsDir, gone)); err == nil {
		t.Error("the entry of a session that does not exist was kept")
	}
	list := r.m.Sessions()
	if len(list) != 1 || list[0].ID != id {
		t.Fatalf("listed %+v, want session %s", list, id)
	}
	evs := r.wait(Admitted{SessionID: id, RunID: "run_1", After: After(0)})
	if end := evs[len(evs)-1]; end.Type != EvRunFinished || end.Reason != string(EndInterrupted) {
		t.Fatalf("the unindexed open run ended %s %q, want interrupted", end.Type, end.Reason)
	}
}

// axon serve killed (SIGKILL) mid-run, beside sessions that finished, is
// restarted and stopped (SIGTERM) without a request: the run is sealed,
// because Start found it in the open-run index and resumed it. (Nothing else
// opens the session, and SIGTERM seals only runs something resumed.)
func TestServeRecoversIndexedRunAfterKill(t *testing.T) {
	t.Parallel()
	for _, point := range []string{"after_model_step:1", "after_intents:2"} {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			up := newUpstream(t, 3, 2)
			w := newWorld(t, up)
			sessions := filepath.Join(w.state, "sessions")
			for _, name := range []string{"a", "b", "c"} {
				recs := append(openRunRecs("run_" + name)[:1], Record{Type: RecRunFinished, RunID: "run_" + name, Finished: &RunEnd{Reason: EndCancelled}})
				writeSession(t, sessions, Key{ProjectRoot: "/done", Harness: "cli", Session: name}, recs...)
			}
			srv := w.serve("AXON_FAILPOINT=" + point)
			resp, err := http.Post(srv.url+"/v1/sessions", "application/json", strings.NewReader(strings.Replace(serveBody, "%s", "take notes", 1)))
			if err == nil {
				resp.Body.Close()
			}
			if x := <-srv.done; !x.killed {
				t.Fatalf("server exited %d, want killed at %s:\n%s", x.code, point, x.output)
			}
			idx := filepath.Join(sessions, openRunsDir)
			for _, f := range []string{indexComplete, crashKey.ID()} {
				if _, err := os.Stat(filepath.Join(idx, f)); err != nil {
					t.Fatalf("open-run index after the kill: %v", err)
				}
			}

			srv = w.serve()
			if x := srv.stop(); x.code != 0 || x.killed {
				t.Fatalf("SIGTERM: exit %d:\n%s", x.code, x.output)
			}
			o := w.check() // one run, sealed once, nothing sent twice
			if o.reason != EndCompleted && o.reason != EndInterrupted {
				t.Fatalf("outcome %+v, want the run sealed", o)
			}
			if _, err := os.Stat(filepath.Join(idx, crashKey.ID())); err == nil {
				t.Error("the sealed run's index entry is still there")
			}
		})
	}
}
