package config

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

var update = flag.Bool("update", false, "rewrite the golden diagnostics under testdata/")

const testHome = "/home/pi"

// mapEnv is a hermetic environment for Options.LookupEnv.
func mapEnv(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}

func testOptions(env map[string]string) Options {
	return Options{LookupEnv: mapEnv(env), HomeDir: testHome, ExecutableDir: "/opt/axon/bin", GOOS: "linux"}
}

// parse loads configuration text the way Load would load a file.
func parse(t *testing.T, src string) (*Config, hcl.Diagnostics, *Loader) {
	t.Helper()
	l := NewLoader(testOptions(nil))
	cfg, diags := l.Parse("/etc/axon/axon.hcl", []byte(src))
	return cfg, diags, l
}

func mustParse(t *testing.T, src string) *Config {
	t.Helper()
	cfg, diags, l := parse(t, src)
	if diags.HasErrors() || cfg == nil {
		t.Fatalf("unexpected diagnostics:\n%s", render(t, l.Files(), diags))
	}
	return cfg
}

func render(t *testing.T, files map[string]*hcl.File, diags hcl.Diagnostics) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteDiagnostics(&buf, files, diags); err != nil {
		t.Fatalf("WriteDiagnostics: %v", err)
	}
	return buf.String()
}

// checkGolden compares got with the golden file, or rewrites it under -update.
func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("diagnostics differ from %s (run go test -update after checking them):\n--- got ---\n%s--- want ---\n%s", golden, got, want)
	}
}

func goldenName(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".golden"
}

// summaries lists each diagnostic as "severity: summary @line".
func summaries(diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		s := sev + ": " + d.Summary
		if d.Subject != nil {
			s += " @" + d.Subject.Filename + ":" + strconv.Itoa(d.Subject.Start.Line) + ":" + strconv.Itoa(d.Subject.Start.Column)
		}
		out = append(out, s)
	}
	return out
}
