package sdktest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGolden(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "golden", "case.json")
	if errs := failures(t, func(tb testing.TB) { Golden(tb, path, []byte("one\n"), false) }); len(errs) != 1 || !strings.Contains(errs[0], "-update") {
		t.Errorf("missing golden file: failures %q, want one naming -update", errs)
	}
	if errs := failures(t, func(tb testing.TB) { Golden(tb, path, []byte("one\n"), true) }); len(errs) != 0 {
		t.Fatalf("update: %q", errs)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "one\n" {
		t.Fatalf("after update the file holds %q (%v), want %q", b, err, "one\n")
	}
	if errs := failures(t, func(tb testing.TB) { Golden(tb, path, []byte("one\n"), false) }); len(errs) != 0 {
		t.Errorf("equal output: failures %q, want none", errs)
	}
	errs := failures(t, func(tb testing.TB) { Golden(tb, path, []byte("two\n"), false) })
	if len(errs) != 1 || !strings.Contains(errs[0], `"one\n"`) || !strings.Contains(errs[0], `"two\n"`) {
		t.Errorf("different output: failures %q, want one diff", errs)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\n" {
		t.Errorf("a comparison rewrote the golden file: %q", b)
	}
}

func TestGoldenJSON(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "v.json")
	GoldenJSON(t, path, json.RawMessage(`{"b":[1,2],"a":{}}`), true)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"b\": [\n    1,\n    2\n  ],\n  \"a\": {}\n}\n"; string(b) != want {
		t.Errorf("wrote %q, want %q", b, want)
	}
	GoldenJSON(t, path, struct {
		B []int    `json:"b"`
		A struct{} `json:"a"`
	}{B: []int{1, 2}}, false) // the same JSON from a value compares equal
}
