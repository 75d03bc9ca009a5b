package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestExamples loads every examples/*.hcl the way axon check would.
func TestExamples(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("../../examples/*.hcl")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	for _, want := range []string{"workstation.hcl", "ollama-only.hcl"} {
		if !slices.Contains(names, want) {
			t.Errorf("examples/%s is missing (found %v)", want, names)
		}
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			l := NewLoader(testOptions(nil))
			cfg, diags := l.Parse(path, text)
			if len(diags) > 0 {
				t.Fatalf("diagnostics:\n%s", render(t, l.Files(), diags))
			}
			if cfg.Chain(DefaultChain) == nil {
				t.Error("no default chain")
			}
		})
	}
}
