package session

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
)

// BenchmarkStartManySessions measures what `axon serve` waits for before it
// answers /healthz: New and Start of the session manager over a state
// directory of 10 000 sessions, 10 or 100 of them with a run a crash left open
// (a model step asked for a tool call whose intent is durable and whose
// result is not, so Start ends it interrupted without calling a model).
// Each session is a real directory (meta.json, a WAL of three to four
// records, its projection snapshot); the finished ones are copies of one
// written by a Manager, the open ones are written by a Manager again before
// every iteration (untimed), as a crashed run would have left them. The
// resumed runs are sealed by Shutdown, also untimed.
//
//	go test -run '^$' -bench StartManySessions -benchtime 5x ./host/session/
func BenchmarkStartManySessions(b *testing.B) {
	for _, open := range []int{10, 100} {
		b.Run(fmt.Sprintf("sessions=10000/open=%d", open), func(b *testing.B) { benchStart(b, 10_000, open) })
	}
}

func benchStart(b *testing.B, total, open int) {
	dir := b.TempDir()
	noEnv := func(string) (string, bool) { return "", false }
	tools := []FrozenTool{{Block: "notes", Name: "append_note", SideEffect: sdk.SideEffectUnsafe}}
	write := func(m *Manager, key Key, finished bool) {
		a, err := m.acquire(key.ID(), &key)
		if err != nil {
			b.Fatal(err)
		}
		defer m.release(a)
		call := sdk.ToolCall{ID: "call_1", Name: "append_note", Input: []byte(`{"text":"meeting moved to 3pm"}`)}
		recs := []Record{{Type: RecRunStarted, RunID: "r1", RunStarted: &RunStarted{IdempotencyKey: "k1", Prompt: "Note that the meeting moved to 3pm.", Chain: "default", MaxTurns: 8, Tools: tools}}}
		if finished {
			recs = append(recs,
				Record{Type: RecModelStepFinished, RunID: "r1", ModelStep: &ModelStep{Step: 1, Chain: "default", Provider: "fake", Message: encodeParts([]sdk.Part{sdk.Text{Text: "Noted."}})}},
				Record{Type: RecRunFinished, RunID: "r1", Finished: &RunEnd{Reason: EndCompleted}})
		} else {
			recs = append(recs,
				Record{Type: RecModelStepFinished, RunID: "r1", ModelStep: &ModelStep{Step: 1, Chain: "default", Provider: "fake", Message: encodeParts([]sdk.Part{call})}},
				Record{Type: RecToolDispatch, RunID: "r1", Intent: &ToolIntent{Step: 1, CallID: "call_1", Name: "append_note", Block: "notes", SideEffect: sdk.SideEffectUnsafe, IdempotencyKey: "r1:call_1"}})
		}
		for _, rec := range recs {
			if err := a.exec(func() error { _, err := a.commit(rec); return err }); err != nil {
				b.Fatal(err)
			}
		}
	}
	key := func(i int) Key {
		return Key{ProjectRoot: "/home/me/project", Harness: "bench", Session: fmt.Sprintf("s%05d", i)}
	}

	// One finished session written by a Manager, copied total-open times.
	tmplDir := b.TempDir()
	tm, err := New(Options{Dir: tmplDir, Chains: oneHop(&model{}), LookupEnv: noEnv})
	if err != nil {
		b.Fatal(err)
	}
	write(tm, key(0), true)
	if err := tm.Shutdown(context.Background()); err != nil {
		b.Fatal(err)
	}
	tmpl := filepath.Join(tmplDir, key(0).ID())
	walBytes, err := os.ReadFile(filepath.Join(tmpl, walFile))
	if err != nil {
		b.Fatal(err)
	}
	snap, err := readSnapshot(tmpl)
	if err != nil {
		b.Fatal(err)
	}
	for i := open; i < total; i++ {
		k := key(i)
		sd := filepath.Join(dir, k.ID())
		md, _ := json.Marshal(meta{Key: k, CreatedAt: time.Now().UTC()})
		s := *snap
		s.ID, s.Key = k.ID(), k
		sb, _ := json.Marshal(&s)
		if err := os.MkdirAll(sd, 0o700); err != nil {
			b.Fatal(err)
		}
		for name, body := range map[string][]byte{metaFile: md, walFile: walBytes, projectionFile: sb} {
			if err := os.WriteFile(filepath.Join(sd, name), body, 0o600); err != nil {
				b.Fatal(err)
			}
		}
	}

	// A first start over the copies (as after an upgrade), untimed.
	first, err := New(Options{Dir: dir, Chains: oneHop(&model{}), LookupEnv: noEnv})
	if err != nil {
		b.Fatal(err)
	}
	if err := first.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	first.Shutdown(context.Background())

	var elapsed time.Duration
	for b.Loop() {
		b.StopTimer()
		wm, err := New(Options{Dir: dir, Chains: oneHop(&model{}), LookupEnv: noEnv})
		if err != nil {
			b.Fatal(err)
		}
		for i := range open {
			os.RemoveAll(filepath.Join(dir, key(i).ID()))
			write(wm, key(i), false)
		}
		if err := wm.Shutdown(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		m, err := New(Options{Dir: dir, Chains: oneHop(&model{}), LookupEnv: noEnv})
		if err != nil {
			b.Fatal(err)
		}
		if err := m.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		b.StopTimer()
		if err := m.Shutdown(context.Background()); err != nil {
			b.Fatal(err)
		}
		for i := range open {
			info, err := readSnapshot(filepath.Join(dir, key(i).ID()))
			if err != nil {
				b.Fatal(err)
			}
			if r := info.LastRun(); r == nil || r.Status != StatusFinished || r.Reason != EndInterrupted {
				b.Fatalf("session %d: the open run was not recovered: %+v", i, info.LastRun())
			}
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(elapsed.Microseconds())/1000/float64(b.N), "ms-to-ready")
}
