package config

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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
	return Options{LookupEnv: mapEnv(env), HomeDir: testHome, ExecutableDir: "/opt/axon/bin", GOOS: "linux", Stat: testDirs.stat}
}

// testDirs are the directories that exist for testOptions: the default
// homes of the command-line presets, which the docs use, and one more.
var testDirs = fakeDirs{
	testHome + "/.config/axon/claude-home": true,
	testHome + "/.config/axon/codex-home":  true,
	testHome + "/.config/axon/gemini-home": true,
	testHome + "/cli-home":                 true,
	testHome + "/tool-home":                true,
	testHome + "/a-file":                   false,
}

// fakeDirs is a file system of directories (true) and files (false) for
// Options.Stat.
type fakeDirs map[string]bool

func (f fakeDirs) stat(name string) (fs.FileInfo, error) {
	dir, ok := f[name]
	if !ok {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return fakeInfo{name: filepath.Base(name), dir: dir}, nil
}

type fakeInfo struct {
	name string
	dir  bool
}

func (i fakeInfo) Name() string { return i.name }
func (i fakeInfo) Size() int64  { return 0 }
func (i fakeInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o700
	}
	return 0o600
}
func (i fakeInfo) ModTime() time.Time { return time.Time{} }
func (i fakeInfo) IsDir() bool        { return i.dir }
func (i fakeInfo) Sys() any           { return nil }

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
