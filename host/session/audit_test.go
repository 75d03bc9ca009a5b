package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/axonhq/axon/host/wal"
	"github.com/axonhq/axon/sdk"
)

// The crash harness's checker must be able to fail: each broken invariant,
// written to disk by hand, is reported.
func TestCrashAuditCatchesViolations(t *testing.T) {
	t.Parallel()
	const run = "r"
	started := Record{Type: RecRunStarted, RunID: run, RunStarted: &RunStarted{IdempotencyKey: "k1", Prompt: "p", Chain: "default", MaxTurns: 3}}
	step := Record{Type: RecModelStepFinished, RunID: run, ModelStep: &ModelStep{Step: 1, Message: encodeParts([]sdk.Part{call("call_s0_0", "append_note", `{}`), call("call_s0_1", "append_note", `{}`)})}}
	intent := func(id string) Record {
		return Record{Type: RecToolDispatch, RunID: run, Intent: &ToolIntent{Step: 1, CallID: id, Name: "append_note", Block: "notes"}}
	}
	result := func(id string) Record {
		return Record{Type: RecToolResult, RunID: run, Result: &ToolOutput{Step: 1, CallID: id, Name: "append_note", Content: encodeParts([]sdk.Part{sdk.Text{Text: "Appended"}})}}
	}
	end := func(reason EndReason, indeterminate ...string) Record {
		return Record{Type: RecRunFinished, RunID: run, Finished: &RunEnd{Reason: reason, IndeterminateToolCalls: indeterminate}}
	}
	for _, c := range []struct {
		name  string
		recs  []Record
		notes string
		want  string
	}{
		{"a call sent twice", []Record{started, step, intent("call_s0_0"), intent("call_s0_0"), result("call_s0_0"), end(EndCompleted)}, "entry call_s0_0", "has 2 intents"},
		{"an entry appended twice", []Record{started, step, intent("call_s0_0"), result("call_s0_0"), end(EndCompleted)}, "entry call_s0_0\nentry call_s0_0", "appended 2 times"},
		{"an entry without intent", []Record{started, step, end(EndCompleted)}, "entry call_s0_1", "without an intent"},
		{"an answered append that is missing", []Record{started, step, intent("call_s0_0"), result("call_s0_0"), end(EndCompleted)}, "", "in the note 0 times"},
		{"interrupted naming the wrong calls", []Record{started, step, intent("call_s0_0"), intent("call_s0_1"), result("call_s0_0"), end(EndInterrupted, "call_s0_0")}, "entry call_s0_0", "want exactly the unanswered intents [call_s0_1]"},
		{"completed with a call unanswered", []Record{started, step, intent("call_s0_0"), end(EndCompleted)}, "", "unanswered"},
		{"never sealed", []Record{started, step}, "", "and 0 sealed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := &world{t: t, dir: t.TempDir()}
			w.state, w.notes = filepath.Join(w.dir, "state"), filepath.Join(w.dir, "notes")
			writeSession(t, filepath.Join(w.state, "sessions"), crashKey, c.recs...)
			if err := os.MkdirAll(w.notes, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(w.notes, "log.md"), []byte(c.notes), 0o600); err != nil {
				t.Fatal(err)
			}
			_, problems := w.audit()
			if !strings.Contains(fmt.Sprint(problems), c.want) {
				t.Errorf("problems %q, want one saying %q", problems, c.want)
			}
		})
	}
}

// writeSession writes recs as the WAL of session key under dir, one
// record per batch.
func writeSession(t *testing.T, dir string, key Key, recs ...Record) {
	t.Helper()
	sdir := filepath.Join(dir, key.ID())
	if err := makeDirs(dir, sdir); err != nil {
		t.Fatal(err)
	}
	w, err := wal.Open(filepath.Join(sdir, walFile))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := writeMeta(sdir, meta{Key: key, CreatedAt: time.Unix(0, 0).UTC()}); err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		rec.At = time.Unix(1, 0).UTC()
		b, err := encodeRecord(rec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Append(b); err != nil {
			t.Fatal(err)
		}
	}
}
