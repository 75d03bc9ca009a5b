package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCheckPluginBinaries(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, `provider "main" {
  plugin = "opneai"
  model  = "m"
}
provider "ok" {
  plugin = "openai"
  model  = "m"
}
tool "clocks" {}
tool "zzzzzzzz" {}
chain "default" { providers = [provider.main, provider.ok] }
`)
	installed := []string{"axon-provider-openai", "axon-provider-anthropic", "axon-tool-clock", "axon-display-term"}
	diags := cfg.CheckPluginBinaries(installed)
	if len(diags) != 3 {
		t.Fatalf("got %d diagnostics, want 3: %v", len(diags), diags)
	}
	for _, d := range diags {
		if d.Summary != "Plugin not installed" || d.Subject == nil {
			t.Errorf("diagnostic %v: wrong summary or no subject", d)
		}
	}
	want := []struct {
		line   int
		detail string
	}{
		{2, `provider "main" uses plugin "opneai", but there is no axon-provider-opneai in plugin_dir`},
		{9, `Did you mean "clock"?`},
		{10, `Installed tool plugins: clock.`},
	}
	for i, w := range want {
		d := diags[i]
		if d.Subject.Start.Line != w.line || !strings.Contains(d.Detail, w.detail) {
			t.Errorf("diagnostic %d: line %d %q; want line %d containing %q", i, d.Subject.Start.Line, d.Detail, w.line, w.detail)
		}
	}
	if !strings.Contains(diags[0].Detail, `Did you mean "openai"?`) {
		t.Errorf("no suggestion: %s", diags[0].Detail)
	}
	if diags := cfg.CheckPluginBinaries(nil); !strings.Contains(diags[0].Detail, "No provider plugin is installed") {
		t.Errorf("empty plugin_dir: %s", diags[0].Detail)
	}
}

func TestInstalledPlugins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, n := range []string{"axon-tool-clock", "axon-provider-openai", "README"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "axon-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := InstalledPlugins(dir)
	if want := []string{"axon-provider-openai", "axon-tool-clock"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("InstalledPlugins = %v, %v; want %v", got, err, want)
	}
	if got, err := InstalledPlugins(filepath.Join(dir, "none")); err != nil || got != nil {
		t.Errorf("missing dir: %v, %v", got, err)
	}
}
