package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkArchive measures an archive pass over 1 000 closed sessions
// (one finished run each; 4 containers of 256), and `axon sessions`
// (List) over them before and after, the latter reading every log from the
// archive.
//
//	go test -run '^$' -bench Archive -benchtime 3x ./host/session/
func BenchmarkArchive(b *testing.B) {
	const n = 1000
	tmpl := newArchiveWorldB(b)
	src := filepath.Join(tmpl, "sessions", keyN(0).ID())
	walBytes, _ := os.ReadFile(filepath.Join(src, walFile))
	metaBytes, _ := os.ReadFile(filepath.Join(src, metaFile))
	fill := func() string {
		state := b.TempDir()
		for i := range n {
			dir := filepath.Join(state, "sessions", keyN(i).ID())
			if err := os.MkdirAll(dir, 0o700); err != nil {
				b.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, walFile), walBytes, 0o600)
			os.WriteFile(filepath.Join(dir, metaFile), metaBytes, 0o600)
		}
		return filepath.Join(state, "sessions")
	}
	b.Run("pass/sessions=1000", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			dir := fill()
			b.StartTimer()
			res, err := Archive(context.Background(), dir, ArchiveOptions{})
			if err != nil || len(res.Archived) != n {
				b.Fatalf("%d archived, %v", len(res.Archived), err)
			}
		}
	})
	for _, archived := range []bool{false, true} {
		dir := fill()
		if archived {
			if _, err := Archive(context.Background(), dir, ArchiveOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("list/sessions=1000/archived=%v", archived), func(b *testing.B) {
			for b.Loop() {
				list, err := List(dir)
				if err != nil || len(list) != n || list[0].Error != "" {
					b.Fatalf("%d listed, %v", len(list), err)
				}
			}
		})
	}
}

// newArchiveWorldB is newArchiveWorld's one session, for a benchmark.
func newArchiveWorldB(b *testing.B) string {
	state := b.TempDir()
	m, err := New(Options{Dir: filepath.Join(state, "sessions"), Chains: oneHop(&model{}), LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		b.Fatal(err)
	}
	k := keyN(0)
	a, err := m.acquire(k.ID(), &k)
	if err != nil {
		b.Fatal(err)
	}
	for _, rec := range openRunRecs("r1") {
		if err := a.exec(func() error { _, err := a.commit(rec); return err }); err != nil {
			b.Fatal(err)
		}
	}
	end := Record{Type: RecRunFinished, RunID: "r1", Finished: &RunEnd{Reason: EndInterrupted, IndeterminateToolCalls: []string{"n1"}}}
	if err := a.exec(func() error { _, err := a.commit(end); return err }); err != nil {
		b.Fatal(err)
	}
	m.release(a)
	if err := m.Shutdown(context.Background()); err != nil {
		b.Fatal(err)
	}
	return state
}
