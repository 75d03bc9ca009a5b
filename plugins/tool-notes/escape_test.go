package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNoteNamesCannotEscape: a name from the model never reaches a path
// outside dir, never names the index, and never creates anything.
func TestNoteNamesCannotEscape(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "notes")
	n := newNotes(t, dir)
	names := []string{
		"../escape", "..", ".", "a/b", `a\b`, "/etc/passwd", ".applied", "notes.md", "x.txt",
		"café", "ｎｏｔｅｓ", "a b", "a\x00b", "a\nb", "~", "$HOME", strings.Repeat("a", 65),
	}
	for _, name := range names {
		for _, tool := range []string{toolAppend, toolRead} {
			input := `{"note":` + quote(name) + `,"text":"x"}`
			if tool == toolRead {
				input = `{"note":` + quote(name) + `}`
			}
			got, isErr := call(t, n, tool, "", input)
			if !isErr || !strings.Contains(got, "invalid note name") {
				t.Errorf("%s %q: got %q (error %v), want an invalid-name error", tool, name, got, isErr)
			}
		}
	}
	if got := ls(t, parent); !slices.Equal(got, []string{"notes"}) {
		t.Errorf("parent holds %q, want only notes", got)
	}
	if got := ls(t, dir); !slices.Equal(got, []string{appliedFile}) {
		t.Errorf("dir holds %q, want only the index", got)
	}
}

// TestPlantedSymlinkStaysInside: even a symlink someone else put in dir
// cannot take an append outside it.
func TestPlantedSymlinkStaysInside(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	outside := filepath.Join(parent, "outside.md")
	if err := os.WriteFile(outside, []byte("untouched"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "notes")
	n := newNotes(t, dir)
	for name, target := range map[string]string{"abs": outside, "rel": "../outside.md"} {
		if err := os.Symlink(target, filepath.Join(dir, name+".md")); err != nil {
			t.Fatal(err)
		}
		res, err := n.Call(t.Context(), invocation(toolAppend, `{"note":"`+name+`","text":"x"}`))
		if err == nil && !res.IsError {
			t.Errorf("append through the %s symlink succeeded", name)
		}
	}
	if got := readFile(t, outside); got != "untouched" {
		t.Errorf("file outside dir now holds %q", got)
	}
}

func ls(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
