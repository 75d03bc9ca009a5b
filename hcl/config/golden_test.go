package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestBrokenConfigs loads every testdata/broken/*.hcl and compares the
// printed diagnostics with the .golden file beside it.
func TestBrokenConfigs(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("testdata/broken/*.hcl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no broken configs found: %v", err)
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
			if !diags.HasErrors() {
				t.Fatalf("loaded without errors; diagnostics: %v", summaries(diags))
			}
			if cfg != nil {
				t.Error("a Config was returned alongside errors")
			}
			for _, d := range diags {
				if d.Severity == hcl.DiagError && d.Subject == nil {
					t.Errorf("error %q has no source range", d.Summary)
				}
			}
			checkGolden(t, goldenName(path), render(t, l.Files(), diags))
		})
	}
}

// TestWarningConfigs loads every testdata/warnings/*.hcl: each loads, with
// warnings that match the .golden file.
func TestWarningConfigs(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("testdata/warnings/*.hcl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no warning configs found: %v", err)
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
			if diags.HasErrors() || cfg == nil {
				t.Fatalf("did not load: %v", summaries(diags))
			}
			if len(diags) == 0 {
				t.Fatal("no warnings")
			}
			checkGolden(t, goldenName(path), render(t, l.Files(), diags))
		})
	}
}

// TestLiteralCredentialNeverPrinted: a pasted secret is refused without
// being echoed, neither in the message nor in the quoted source line.
func TestLiteralCredentialNeverPrinted(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-DO-NOT-PRINT-0123456789"
	path := "testdata/broken/literal_credential.hcl"
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), secret) {
		t.Fatal("test file no longer holds the literal secret")
	}
	l := NewLoader(testOptions(nil))
	_, diags := l.Parse(path, text)
	if out := render(t, l.Files(), diags); strings.Contains(out, secret) {
		t.Errorf("diagnostics print the literal credential:\n%s", out)
	}
	if !strings.Contains(render(t, l.Files(), diags), "Literal credential") {
		t.Error("the literal credential was not reported")
	}
}
