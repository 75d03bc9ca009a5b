package cli

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/axonhq/axon/host/internal/testbin"
)

var (
	cliPluginOnce sync.Once
	cliPluginErr  error
)

// TestCheckCLIPresetsAgainstThePlugin: each command-line preset's values
// pass the real axon-provider-cli's schema and its own checks (types, the
// path language, the patterns, the placeholders) when check configures it.
// The clients themselves are one-line scripts: check only starts the
// plugin, which resolves the client's argv[0] in path and runs nothing.
func TestCheckCLIPresetsAgainstThePlugin(t *testing.T) {
	cliPluginOnce.Do(func() {
		cliPluginErr = testbin.BuildInto(binDir, testbin.Target{Name: "axon-provider-cli", Pkg: "../../plugins/provider-cli"})
	})
	if cliPluginErr != nil {
		t.Fatalf("axon-provider-cli does not build: %v", cliPluginErr)
	}
	clients := t.TempDir()
	for _, name := range []string{"claude", "codex", "gemini"} {
		if err := os.WriteFile(filepath.Join(clients, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var blocks strings.Builder
	var want []string
	for _, preset := range []string{"claude-code", "codex", "gemini-cli"} {
		home := t.TempDir()
		name := strings.ReplaceAll(preset, "-", "_")
		blocks.WriteString(`provider "` + name + `" {
  preset = "` + preset + `"
  home   = "` + home + `"
  path   = "` + clients + `"
  grant { read_only = ["` + clients + `"] }
}
`)
		want = append(want, "    credential: the client's own login in "+home+" (outside the host: the one place axon keeps no key)\n")
	}
	blocks.WriteString("chain \"default\" { providers = [provider.claude_code, provider.codex, provider.gemini_cli] }\n")
	code, out, errOut := run(t, nil, "check", "--config", writeConfig(t, blocks.String()))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	want = append(want,
		"    preset: codex, written for codex-cli 0.128 (a newer client may change its flags or output)\n",
		"    egress: https proxy (CONNECT) to cloudcode-pa.googleapis.com, oauth2.googleapis.com\n",
		"    routing: tier sub; routed\n",
	)
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("check output lacks %q:\n%s", w, out)
		}
	}
}
