package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSameKeyAppendsOnce: the plugin's own guard against a repeated
// append, within one process and across a restart.
func TestSameKeyAppendsOnce(t *testing.T) {
	t.Parallel()
	const once = "## 2026-11-29T14:03:04+01:00\n\nfeed the cat\n\n"
	tests := []struct {
		name    string
		keys    []string // one append_note call per key
		restart bool     // a fresh plugin process between calls
		want    string
	}{
		{name: "same key twice", keys: []string{"run1:call1", "run1:call1"}, want: once},
		{name: "same key after a restart", keys: []string{"run1:call1", "run1:call1"}, restart: true, want: once},
		{name: "different keys", keys: []string{"run1:call1", "run1:call2"}, want: once + once},
		{name: "no key: no guard", keys: []string{"", ""}, want: once + once},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			n := newNotes(t, dir)
			var results []string
			for _, key := range tt.keys {
				if tt.restart {
					n = newNotes(t, dir)
				}
				got, isErr := call(t, n, toolAppend, key, `{"text":"feed the cat"}`)
				if isErr {
					t.Fatal(got)
				}
				results = append(results, got)
			}
			if got := readFile(t, filepath.Join(dir, "notes.md")); got != tt.want {
				t.Errorf("note holds %q, want %q", got, tt.want)
			}
			for _, r := range results {
				if r != results[0] {
					t.Errorf("results differ: %q", results)
				}
			}
		})
	}
}

// TestCrashBetweenRecordAndEntry: the index record is fsynced before the
// entry; if the process died in between, the entry is missing and a retry
// under the same key must append it (once), not claim it was done.
func TestCrashBetweenRecordAndEntry(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n := newNotes(t, dir)
	call(t, n, toolAppend, "", `{"text":"before"}`)
	call(t, n, toolAppend, "run1:call1", `{"text":"feed the cat"}`)
	// Undo the entry but keep its record: the state a crash leaves.
	path := filepath.Join(dir, "notes.md")
	before := "## 2026-11-29T14:03:04+01:00\n\nbefore\n\n"
	if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}

	n = newNotes(t, dir)
	for range 2 {
		if got, isErr := call(t, n, toolAppend, "run1:call1", `{"text":"feed the cat"}`); isErr {
			t.Fatal(got)
		}
	}
	want := before + "## 2026-11-29T14:03:04+01:00\n\nfeed the cat\n\n"
	if got := readFile(t, path); got != want {
		t.Errorf("note holds %q, want %q", got, want)
	}
}

// TestTornIndexRecord: a record cut by a crash is dropped on start, and the
// records written after it stay readable.
func TestTornIndexRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n := newNotes(t, dir)
	call(t, n, toolAppend, "run1:call1", `{"text":"one"}`)
	index := filepath.Join(dir, appliedFile)
	f, err := os.OpenFile(index, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"key":"run1:call2","note":"no`)
	f.Close()

	n = newNotes(t, dir)
	call(t, n, toolAppend, "run1:call2", `{"text":"two"}`)
	n = newNotes(t, dir)
	call(t, n, toolAppend, "run1:call1", `{"text":"one"}`)
	call(t, n, toolAppend, "run1:call2", `{"text":"two"}`)

	if got := strings.Count(readFile(t, filepath.Join(dir, "notes.md")), "## "); got != 2 {
		t.Errorf("note holds %d entries, want 2", got)
	}
	lines := strings.Split(strings.TrimSuffix(readFile(t, index), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], `{"key":"run1:call2"`) {
		t.Errorf("index lines %q, want two whole records", lines)
	}
}
