package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckShowsClientLines: for a block with a home, check says where the
// client's own login lives; for a proxy block, which hosts its proxy
// reaches; for a command-line preset, the client version it was written
// for. axon-provider-cli is not built here: the preset's block runs the
// openai plugin under that name (a symlink), which takes the base_url the
// block writes and none of the preset's cli values, since it declares
// none of them; the lines come from the configuration alone.
func TestCheckShowsClientLines(t *testing.T) {
	up := openaiUpstream(t, 200, "x")
	plugins := t.TempDir()
	for _, name := range []string{"axon-provider-openai", "axon-provider-cli"} {
		if err := os.Symlink(filepath.Join(binDir, "axon-provider-openai"), filepath.Join(plugins, name)); err != nil {
			t.Fatal(err)
		}
	}
	claudeHome, toolHome := t.TempDir(), t.TempDir()
	cfg := filepath.Join(t.TempDir(), "axon.hcl")
	text := `axon {
  state_dir  = "` + t.TempDir() + `"
  plugin_dir = "` + plugins + `"
}
provider "claude" {
  preset   = "claude-code"
  home     = "` + claudeHome + `"
  base_url = "` + up.URL + `/v1"
}
provider "plain" {
  plugin   = "openai"
  base_url = "` + up.URL + `/v1"
  model    = "m"
  home     = "` + toolHome + `"
  egress {
    proxy = true
    allow = ["api.example.com", "*.example.org"]
  }
}
provider "direct" {
  plugin   = "openai"
  base_url = "` + up.URL + `/v1"
  model    = "m"
}
chain "default" { providers = [provider.claude, provider.plain, provider.direct] }
`
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, nil, "check", "--config", cfg)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"    preset: claude-code, written for Claude Code 2.1 (a newer client may change its flags or output)\n",
		"    credential: the client's own login in " + claudeHome + " (outside the host: the one place axon keeps no key)\n",
		"    egress: https proxy (CONNECT) to api.anthropic.com, platform.claude.com, " + strings.TrimPrefix(up.URL, "http://") + "\n",
		"    credential: the client's own login in " + toolHome + " (outside the host: the one place axon keeps no key)\n",
		"    egress: https proxy (CONNECT) to api.example.com, *.example.org, " + strings.TrimPrefix(up.URL, "http://") + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}
	// A block with neither home nor proxy gets neither line.
	direct := out[strings.Index(out, `provider direct`):]
	if i := strings.Index(direct, "\nok  "); i >= 0 {
		direct = direct[:i]
	}
	if strings.Contains(direct, "credential:") || strings.Contains(direct, "egress:") || strings.Contains(direct, "preset:") {
		t.Errorf("provider direct shows client lines:\n%s", direct)
	}
}
