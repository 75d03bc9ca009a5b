package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentAppendsDoNotInterleave: many calls at once, each entry
// lands whole and exactly once.
func TestConcurrentAppendsDoNotInterleave(t *testing.T) {
	t.Parallel()
	const writers, each = 8, 25
	dir := t.TempDir()
	n := newNotes(t, dir)
	want := map[string]bool{}
	for w := range writers {
		for i := range each {
			want[text(w, i)] = true
		}
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				// Every key twice: the repeat must not add an entry.
				for range 2 {
					res, err := n.Call(t.Context(), invocationKey(toolAppend, fmt.Sprintf(`{"text":%q}`, text(w, i)), fmt.Sprintf("run:%d-%d", w, i)))
					if err != nil || res.IsError {
						t.Errorf("append %d/%d: %v %v", w, i, err, res.Content)
					}
				}
			}
		})
	}
	wg.Wait()

	got := map[string]int{}
	for _, e := range strings.Split(readFile(t, filepath.Join(dir, "notes.md")), "## ")[1:] {
		head, body, ok := strings.Cut(e, "\n\n")
		if !ok || head != "2026-11-29T14:03:04+01:00" || !strings.HasSuffix(body, "\n\n") {
			t.Fatalf("malformed entry %.80q", e)
		}
		got[strings.TrimSuffix(body, "\n\n")]++
	}
	if len(got) != len(want) {
		t.Errorf("%d distinct entries, want %d", len(got), len(want))
	}
	for body, count := range got {
		if !want[body] || count != 1 {
			t.Errorf("entry %.40q… appears %d times (expected: %v)", body, count, want[body])
		}
	}
}

// text is a long entry unique to writer w's i-th call, long enough that
// interleaved writes would show.
func text(w, i int) string {
	return strings.TrimSpace(strings.Repeat(fmt.Sprintf("w%d-i%d ", w, i), 300))
}
