package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestCheckWarnsOfMissingCredentials: an unset env() and a missing file()
// are warnings on the credential attribute's line, and the summary says so.
func TestCheckWarnsOfMissingCredentials(t *testing.T) {
	up := openaiUpstream(t, 200, "x")
	missingFile := filepath.Join(t.TempDir(), "no-such-key")
	cfg := writeConfig(t, `
provider "fromenv" {
  plugin     = "openai"
  base_url   = "`+up.URL+`/v1"
  model      = "m"
  credential = env("AXON_TEST_UNSET_KEY")
}
provider "fromfile" {
  plugin     = "openai"
  base_url   = "`+up.URL+`/v1"
  model      = "m"
  credential = file("`+missingFile+`")
}
chain "default" { providers = [provider.fromenv, provider.fromfile] }
`)
	code, out, errOut := run(t, nil, "check", "--config", cfg)
	if code != 0 {
		t.Fatalf("a missing credential is a warning, not an error: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?s)Warning: Credential not found\s+on \S*axon\.hcl line 10, in provider "fromenv".*credential env:AXON_TEST_UNSET_KEY: credential not found \(environment variable not set\)`),
		regexp.MustCompile(`(?s)Warning: Credential not found\s+on \S*axon\.hcl line 16, in provider "fromfile".*no such file`),
	} {
		if !want.MatchString(errOut) {
			t.Errorf("stderr does not match %s:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "is valid with 2 warnings (see above)") {
		t.Errorf("the summary does not mention the warnings:\n%s", out)
	}
	// Set, the same configuration has nothing to warn of.
	if err := os.WriteFile(missingFile, []byte("k2"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run(t, map[string]string{"AXON_TEST_UNSET_KEY": "k1"}, "check", "--config", cfg)
	if code != 0 || strings.Contains(errOut, "Warning") || !regexp.MustCompile(`is valid: \d+ providers`).MatchString(out) {
		t.Errorf("resolvable credentials: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestCanaryKeyNotInCheckOutput: check resolves the credentials but prints
// none of them, found or not.
func TestCanaryKeyNotInCheckOutput(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(canary), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, `
provider "a" {
  plugin     = "openai"
  base_url   = "http://127.0.0.1:1/v1"
  model      = "m"
  credential = file("`+keyFile+`")
}
provider "b" {
  plugin     = "openai"
  base_url   = "http://127.0.0.1:1/v1"
  model      = "m"
  credential = env("CANARY_ENV")
}
provider "c" {
  plugin     = "openai"
  base_url   = "http://127.0.0.1:1/v1"
  model      = "m"
  credential = env("CANARY_UNSET")
}
chain "default" { providers = [provider.a, provider.b, provider.c] }
`)
	code, out, errOut := run(t, map[string]string{"CANARY_ENV": canary}, "--log-level", "trace", "check", "--config", cfg)
	if strings.Contains(out+errOut, canary) {
		t.Fatalf("check printed the key:\n%s\n%s", out, errOut)
	}
	if code != 0 || !strings.Contains(errOut, "CANARY_UNSET") {
		t.Fatalf("the test proves nothing: exit %d\n%s\n%s", code, out, errOut)
	}
}

const misspeltPlugins = `
provider "main" {
  plugin   = "opneai"
  base_url = "http://127.0.0.1:1/v1"
  model    = "m"
}
tool "clocks" {}
chain "default" { providers = [provider.main] }
`

// TestCheckReportsMissingPluginBinaries: a misspelt plugin name is an error
// on the plugin attribute (or the block label) with a suggestion over the
// installed plugins, not a fork/exec failure.
func TestCheckReportsMissingPluginBinaries(t *testing.T) {
	code, out, errOut := run(t, nil, "check", "--plugin-dir", pluginDirWithClock(t), "--config", writeConfig(t, misspeltPlugins))
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	assertMissingPluginDiags(t, errOut, 0)
	if strings.Contains(errOut, "fork/exec") || strings.Contains(errOut, "[WARN]") {
		t.Errorf("check still prints the raw start failure:\n%s", errOut)
	}
	if strings.Contains(out, "is valid") {
		t.Errorf("check says valid:\n%s", out)
	}
}

// TestServeRefusesMissingPluginBinaries: serve prints the same diagnostics
// and exits non-zero instead of listening.
func TestServeRefusesMissingPluginBinaries(t *testing.T) {
	cfg := writeConfig(t, misspeltPlugins)
	text, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(text), "axon {", "axon {\n  listen = \"127.0.0.1:0\"", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	// Before the fix serve listened; the deadline ends it so the test fails
	// rather than hangs.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code, out, errOut := runContext(ctx, t, "serve", "--plugin-dir", pluginDirWithClock(t), "--config", cfg)
	if code == 0 || strings.Contains(out, "listening") {
		t.Fatalf("serve started: exit %d\n%s\n%s", code, out, errOut)
	}
	assertMissingPluginDiags(t, errOut, 1) // the listen line
	if !strings.Contains(errOut, "axon: not serving: the binary of 2 plugin blocks is not installed") {
		t.Errorf("no refusal line:\n%s", errOut)
	}
}

// runContext is run with a context, for a command that may not return.
func runContext(ctx context.Context, t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runEnv(ctx, t, nil, args...)
}

// pluginDirWithClock is a plugin_dir holding the openai provider and a
// (never started) clock tool, for suggestions of both kinds.
func pluginDirWithClock(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(binDir, "axon-provider-openai"), filepath.Join(dir, "axon-provider-openai")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "axon-tool-clock"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// assertMissingPluginDiags checks the two diagnostics of misspeltPlugins,
// written after writeConfig's axon block plus extra lines.
func assertMissingPluginDiags(t *testing.T, errOut string, extra int) {
	t.Helper()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(fmt.Sprintf(`(?s)Error: Plugin not installed\s+on \S*axon\.hcl line %d, in provider "main".*plugin += "opneai".*no axon-provider-opneai in plugin_dir.*Did you mean "openai"\?`, 7+extra)),
		regexp.MustCompile(fmt.Sprintf(`(?s)Error: Plugin not installed\s+on \S*axon\.hcl line %d, in tool "clocks".*tool "clocks" uses plugin "clocks", but there is no axon-tool-clocks.*Did you mean "clock"\?`, 11+extra)),
	} {
		if !want.MatchString(errOut) {
			t.Errorf("stderr does not match %s:\n%s", want, errOut)
		}
	}
}
