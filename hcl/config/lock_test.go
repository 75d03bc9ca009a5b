package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	shaA = "9c8f5e8e7d2c2f0e3b1b7a4f0f5d6c1b2a3948576655443322110099887766aa"
	shaB = "00000000000000000000000000000000000000000000000000000000000000ff"
)

func TestLockRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), LockFileName)
	entries := []LockEntry{
		{Binary: "axon-tool-dice", SHA256: shaB},
		{Binary: "axon-provider-anthropic", SHA256: strings.ToUpper(shaA)},
	}
	if err := WriteLock(path, entries); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wantText := lockHeader + `plugin "axon-provider-anthropic" {
  sha256 = "` + shaA + `"
}

plugin "axon-tool-dice" {
  sha256 = "` + shaB + `"
}
`
	if diff := cmp.Diff(wantText, string(text)); diff != "" {
		t.Errorf("lock file (-want +got):\n%s", diff)
	}
	lock, _, diags := LoadLock(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := &Lock{Entries: []LockEntry{
		{Binary: "axon-provider-anthropic", SHA256: shaA},
		{Binary: "axon-tool-dice", SHA256: shaB},
	}}
	if diff := cmp.Diff(want, lock); diff != "" {
		t.Errorf("lock (-want +got):\n%s", diff)
	}
	if sha, ok := lock.SHA256("axon-tool-dice"); !ok || sha != shaB {
		t.Errorf("SHA256(axon-tool-dice) = %q, %v", sha, ok)
	}
	if _, ok := lock.SHA256("axon-tool-other"); ok {
		t.Error("SHA256 found an unlisted binary")
	}
	entries2, err := os.ReadDir(filepath.Dir(path))
	if err != nil || len(entries2) != 1 {
		t.Errorf("WriteLock left temporary files: %v", entries2)
	}
}

func TestLoadLockMissingIsEmpty(t *testing.T) {
	t.Parallel()
	lock, _, diags := LoadLock(filepath.Join(t.TempDir(), LockFileName))
	if len(diags) > 0 || lock == nil || len(lock.Entries) != 0 {
		t.Errorf("LoadLock(missing) = %v, %v", lock, diags)
	}
}

func TestLoadLockBroken(t *testing.T) {
	t.Parallel()
	path := writeFile(t, filepath.Join(t.TempDir(), LockFileName), `
plugin "axon-provider-anthropic" {
  sha256 = "`+shaA+`"
}
plugin "axon-provider-anthropic" {
  sha256 = "`+shaB+`"
}
plugin "bash" {
  sha256 = "`+shaB+`"
}
plugin "axon-tool-dice" {
  sha256 = "not-hex"
}
plugin "axon-display-epd" {
}
`)
	lock, files, diags := LoadLock(path)
	want := []string{
		"error: Duplicate lock entry @" + path + ":5:1",
		"error: Invalid plugin binary name @" + path + ":8:8",
		"error: Invalid sha256 @" + path + ":12:12",
		"error: Missing required argument @" + path + ":14:1",
	}
	if diff := cmp.Diff(want, summaries(diags)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if lock != nil {
		t.Error("a lock was returned alongside errors")
	}
	if out := render(t, files, diags); !strings.Contains(out, `  12:   sha256 = "not-hex"`) {
		t.Errorf("diagnostics do not quote the source:\n%s", out)
	}
}

func TestWriteLockRefusesBadEntries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name    string
		entries []LockEntry
		wantErr string
	}{
		{"bad binary", []LockEntry{{Binary: "/bin/sh", SHA256: shaA}}, "not a plugin binary name"},
		{"bad sha", []LockEntry{{Binary: "axon-tool-x", SHA256: "abc"}}, "not 64 hex digits"},
		{"duplicate", []LockEntry{{Binary: "axon-tool-x", SHA256: shaA}, {Binary: "axon-tool-x", SHA256: shaB}}, "appears twice"},
	}
	for _, tc := range tests {
		path := filepath.Join(dir, tc.name+".hcl")
		if err := WriteLock(path, tc.entries); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: WriteLock error = %v, want %q", tc.name, err, tc.wantErr)
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s: a refused lock was written", tc.name)
		}
	}
}

// TestPinPrecedence: a block's own sha256 wins over the lock file.
func TestPinPrecedence(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, `
provider "pinned" {
  preset = "ollama"
  sha256 = "`+shaA+`"
}
provider "claude" {
  preset = "anthropic"
  model  = "m"
}
chain "default" {
  providers = [provider.pinned, provider.claude]
}
display "term" {}
`)
	lock := &Lock{Entries: []LockEntry{
		{Binary: "axon-provider-anthropic", SHA256: shaB},
		{Binary: "axon-provider-openai", SHA256: shaB},
	}}
	tests := []struct {
		block *PluginBlock
		want  string
	}{
		{&cfg.Provider("pinned").PluginBlock, shaA},
		{&cfg.Provider("claude").PluginBlock, shaB},
		{&cfg.Displays[0].PluginBlock, ""},
	}
	for _, tc := range tests {
		if got := tc.block.Pin(lock); got != tc.want {
			t.Errorf("%s Pin = %q, want %q", tc.block.Name, got, tc.want)
		}
	}
	if got := (&cfg.Provider("claude").PluginBlock).Pin(nil); got != "" {
		t.Errorf("Pin(nil lock) = %q", got)
	}
	if got, want := cfg.LockPath(), "/etc/axon/axon.lock.hcl"; got != want {
		t.Errorf("LockPath = %q, want %q", got, want)
	}
	embedded := &Config{Source: Source{Kind: SourceEmbedded}, Axon: Axon{StateDir: "/var/lib/axon"}}
	if got, want := embedded.LockPath(), "/var/lib/axon/axon.lock.hcl"; got != want {
		t.Errorf("embedded LockPath = %q, want %q", got, want)
	}
}
