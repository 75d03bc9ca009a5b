package config

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// parseWith loads src with testOptions and the directories dirs.
func parseWith(t *testing.T, src string, dirs fakeDirs) (*Config, []string) {
	t.Helper()
	opts := testOptions(nil)
	if dirs != nil {
		opts.Stat = dirs.stat
	}
	cfg, diags := NewLoader(opts).Parse("/etc/axon/axon.hcl", []byte(src))
	return cfg, summaries(diags)
}

const stubChainTail = "chain \"default\" {\n  providers = [provider.p]\n}\n"

// TestClientDiagnostics: every mistake with home and egress { proxy }
// points at the attribute (or block) that holds it.
func TestClientDiagnostics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string // before stubChainTail; provider "p" starts on line 1
		dirs fakeDirs
		want []string
	}{
		{
			name: "home / is the whole file system",
			src:  "provider \"p\" {\n  preset = \"claude-code\"\n  home   = \"/\"\n}\n",
			want: []string{`error: Invalid value for "home" @/etc/axon/axon.hcl:3:12`},
		},
		{
			name: "home ~user is refused",
			src:  "provider \"p\" {\n  preset = \"claude-code\"\n  home   = \"~pi/claude\"\n}\n",
			want: []string{`error: Invalid value for "home" @/etc/axon/axon.hcl:3:12`},
		},
		{
			name: "home that is not a string",
			src:  "provider \"p\" {\n  preset = \"claude-code\"\n  home   = [\"/a\"]\n}\n",
			want: []string{`error: Invalid value for "home" @/etc/axon/axon.hcl:3:12`},
		},
		{
			name: "a home that does not exist",
			src:  "provider \"p\" {\n  preset = \"claude-code\"\n  home   = \"/srv/claude\"\n}\n",
			want: []string{"error: Missing home directory @/etc/axon/axon.hcl:3:12"},
		},
		{
			name: "the preset's home that does not exist points at the block",
			src:  "provider \"p\" {\n  preset = \"claude-code\"\n}\n",
			dirs: fakeDirs{},
			want: []string{"error: Missing home directory @/etc/axon/axon.hcl:1:1"},
		},
		{
			name: "two blocks share a home",
			src:  "provider \"p\" {\n  preset = \"claude-code\"\n  home   = \"~/cli-home\"\n}\nprovider \"b\" {\n  preset = \"claude-code\"\n  home   = \"~/cli-home\"\n}\n",
			want: []string{"error: Home shared with another block @/etc/axon/axon.hcl:7:12"},
		},
		{
			name: "a home that is a file",
			src:  "provider \"p\" {\n  preset = \"claude-code\"\n  home   = \"~/a-file\"\n}\n",
			want: []string{"error: Home is not a directory @/etc/axon/axon.hcl:3:12"},
		},
		{
			name: "a relative home is the configuration file's directory's",
			src:  "provider \"p\" {\n  preset = \"claude-code\"\n  home   = \"claude\"\n}\n",
			dirs: fakeDirs{"/etc/axon/claude": true},
		},
		{
			name: "a display takes no home",
			src:  "provider \"p\" {\n  preset = \"ollama\"\n}\ndisplay \"d\" {\n  home = \"~/cli-home\"\n}\n",
			want: []string{"error: Unsupported argument @/etc/axon/axon.hcl:5:3"},
		},
		{
			name: "proxy is a strict bool",
			src:  "provider \"p\" {\n  preset = \"claude-code\"\n  egress {\n    proxy = \"true\"\n  }\n}\n",
			want: []string{`error: Invalid value for "proxy" @/etc/axon/axon.hcl:4:13`},
		},
		{
			name: "a cli provider without a preset reaches nothing",
			src:  "provider \"p\" {\n  plugin = \"cli\"\n  home   = \"~/cli-home\"\n}\n",
			want: []string{"error: Proxy reaches nothing @/etc/axon/axon.hcl:1:1"},
		},
		{
			name: "an egress block without allow",
			src:  "provider \"p\" {\n  plugin = \"cli\"\n  egress {\n    max_concurrent = 1\n  }\n}\n",
			want: []string{"warning: Client without a home @/etc/axon/axon.hcl:1:1", "error: Proxy reaches nothing @/etc/axon/axon.hcl:3:3"},
		},
		{
			name: "home ~ is the user's whole home",
			src:  "provider \"p\" {\n  preset = \"claude-code\"\n  home   = \"~\"\n}\n",
			dirs: fakeDirs{testHome: true},
			want: []string{"error: Home holds the host's files @/etc/axon/axon.hcl:3:12"},
		},
		{
			name: "a home above the configuration",
			src:  "provider \"p\" {\n  preset = \"claude-code\"\n  home   = \"/etc\"\n}\n",
			dirs: fakeDirs{"/etc": true},
			want: []string{"error: Home holds the host's files @/etc/axon/axon.hcl:3:12"},
		},
		{
			name: "a tool's home that is the state directory",
			src:  "axon {\n  state_dir = \"/var/lib/axon\"\n}\nprovider \"p\" {\n  preset = \"ollama\"\n}\ntool \"t\" {\n  home = \"/var/lib/axon/\"\n}\n",
			dirs: fakeDirs{"/var/lib/axon": true},
			want: []string{"error: Home holds the host's files @/etc/axon/axon.hcl:8:10"},
		},
		{
			name: "a home above a credential file",
			src:  "provider \"p\" {\n  preset     = \"glm\"\n  model      = \"m\"\n  credential = file(\"/srv/keys/glm\")\n  home       = \"/srv\"\n}\n",
			dirs: fakeDirs{"/srv": true},
			want: []string{"error: Home holds the host's files @/etc/axon/axon.hcl:5:16"},
		},
		{
			name: "an empty allow list replaces the preset's hosts",
			src:  "provider \"p\" {\n  preset = \"claude-code\"\n  egress {\n    allow = []\n  }\n}\n",
			want: []string{"error: Proxy reaches nothing @/etc/axon/axon.hcl:4:13"},
		},
		{
			name: "proxy = true with an empty allow list points at proxy",
			src:  "provider \"p\" {\n  preset = \"ollama\"\n}\ntool \"t\" {\n  egress {\n    proxy = true\n  }\n}\n",
			want: []string{"error: Proxy reaches nothing @/etc/axon/axon.hcl:6:13"},
		},
		{
			name: "a tool's proxy to its allow list",
			src:  "provider \"p\" {\n  preset = \"ollama\"\n}\ntool \"t\" {\n  home = \"~/cli-home\"\n  egress {\n    proxy = true\n    allow = [\"api.example.com\"]\n  }\n}\n",
		},
		{
			name: "a provider with a base_url may proxy with no allow list",
			src:  "provider \"p\" {\n  plugin   = \"openai\"\n  base_url = \"https://api.example.com/v1\"\n  model    = \"m\"\n  egress {\n    proxy = true\n  }\n}\n",
		},
		{
			name: "proxy = false leaves a cli client without network",
			src:  "provider \"p\" {\n  preset = \"claude-code\"\n  egress {\n    proxy = false\n  }\n}\n",
			want: []string{"warning: Client without network @/etc/axon/axon.hcl:4:13"},
		},
		{
			name: "an unsandboxed proxy block",
			src:  "provider \"p\" {\n  preset  = \"claude-code\"\n  sandbox = \"none\"\n}\n",
			want: []string{"warning: Unsandboxed plugin is not confined to the proxy @/etc/axon/axon.hcl:3:13"},
		},
		{
			name: "unsandboxed by the axon block",
			src:  "axon {\n  sandbox = \"none\"\n}\nprovider \"p\" {\n  preset  = \"claude-code\"\n  egress {\n    proxy = true\n  }\n}\n",
			want: []string{"warning: Unsandboxed plugin is not confined to the proxy @/etc/axon/axon.hcl:7:13"},
		},
		{
			name: "a model the command never passes",
			src:  "provider \"p\" {\n  preset = \"codex\"\n  model  = \"gpt-5\"\n}\n",
			want: []string{"warning: Model is not passed to the client @/etc/axon/axon.hcl:3:12"},
		},
		{
			name: "a command that passes {model} with no model",
			src:  "provider \"p\" {\n  preset  = \"codex\"\n  command = [\"codex\", \"exec\", \"-m\", \"{model}\"]\n}\n",
			want: []string{"warning: No model for {model} @/etc/axon/axon.hcl:3:13"},
		},
		{
			name: "a command of its own that passes the model",
			src:  "provider \"p\" {\n  preset  = \"codex\"\n  model   = \"gpt-5\"\n  command = [\"codex\", \"exec\", \"--json\", \"-m\", \"{model}\"]\n}\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, got := parseWith(t, tc.src+stubChainTail, tc.dirs)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProxyDefault: the proxy is on for a provider whose plugin is "cli"
// and for the command-line presets, off for everything else unless the
// block says, and a block's allow list replaces the preset's.
func TestProxyDefault(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		block     string // a provider "p" or tool "p" block
		wantProxy bool
		wantAllow []string
	}{
		{"cli plugin", "provider \"p\" {\n  plugin = \"cli\"\n  egress { allow = [\"api.example.com\"] }\n}", true, []string{"api.example.com"}},
		{"cli preset", "provider \"p\" {\n  preset = \"claude-code\"\n}", true, []string{"api.anthropic.com", "platform.claude.com"}},
		{"cli preset, allow of its own", "provider \"p\" {\n  preset = \"gemini-cli\"\n  egress { allow = [\"cloudcode-pa.googleapis.com\"] }\n}", true, []string{"cloudcode-pa.googleapis.com"}},
		{"cli preset, proxy off", "provider \"p\" {\n  preset = \"codex\"\n  egress { proxy = false }\n}", false, []string{"chatgpt.com", "auth.openai.com"}},
		{"http preset", "provider \"p\" {\n  preset = \"ollama\"\n}", false, nil},
		{"http provider, proxy on", "provider \"p\" {\n  preset = \"ollama\"\n  egress { proxy = true }\n}", true, nil},
		{"tool", "tool \"p\" {\n  egress { allow = [\"a.example\"] }\n}", false, []string{"a.example"}},
		{"tool, proxy on", "tool \"p\" {\n  egress {\n    proxy = true\n    allow = [\"a.example\"]\n  }\n}", true, []string{"a.example"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := tc.block + "\n"
			if tc.block[:4] == "tool" {
				src += "provider \"l\" {\n  preset = \"ollama\"\n}\nchain \"default\" {\n  providers = [provider.l]\n}\n"
			} else {
				src += stubChainTail
			}
			cfg := mustParse(t, src)
			var b *PluginBlock
			for _, pb := range cfg.PluginBlocks() {
				if pb.Name == "p" {
					b = pb
				}
			}
			e, ok := cfg.EgressOf(b)
			if !ok {
				t.Fatal("no egress")
			}
			if e.Proxy != tc.wantProxy {
				t.Errorf("proxy = %v, want %v", e.Proxy, tc.wantProxy)
			}
			if diff := cmp.Diff(tc.wantAllow, e.Allow); diff != "" {
				t.Errorf("allow (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHomeIsGrantedAndNotPassed: home becomes the block's Home and a
// read-write grant (once, even when the grant block lists it too), and
// neither home nor egress { proxy } reaches the plugin's body.
func TestHomeIsGrantedAndNotPassed(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, `provider "p" {
  preset = "claude-code"
  home   = "~/cli-home"
  grant {
    read_write = ["~/cli-home"]
    read_only  = ["/usr/share/zoneinfo"]
  }
  egress {
    proxy = true
  }
}
tool "t" {
  home  = "/home/pi/tool-home/"
  flavour = "x"
}
display "d" {}
`+stubChainTail)
	p := cfg.Provider("p")
	if p.Home != testHome+"/cli-home" || p.HomeRange.Start.Line != 3 {
		t.Errorf("home %q at line %d, want %s/cli-home at line 3", p.Home, p.HomeRange.Start.Line, testHome)
	}
	want := []Grant{{Path: "/usr/share/zoneinfo", Mode: "ro"}, {Path: testHome + "/cli-home", Mode: "rw"}}
	if diff := cmp.Diff(want, p.Grants); diff != "" {
		t.Errorf("grants (-want +got):\n%s", diff)
	}
	raw, diags := DecodePluginBody(&p.PluginBlock, cliAttrs)
	if diags.HasErrors() {
		t.Fatalf("home or proxy reached the plugin's body: %v", diags)
	}
	var values map[string]json.RawMessage
	if err := json.Unmarshal(raw, &values); err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"home", "egress", "proxy", "grant"} {
		if _, ok := values[host]; ok {
			t.Errorf("the plugin is handed %q: %s", host, raw)
		}
	}

	tool := cfg.Tools[0]
	if tool.Home != testHome+"/tool-home" || !cmp.Equal(tool.Grants, []Grant{{Path: testHome + "/tool-home", Mode: "rw"}}) {
		t.Errorf("tool home %q grants %v", tool.Home, tool.Grants)
	}
	if raw, diags := DecodePluginBody(&tool.PluginBlock, cliAttrs); !diags.HasErrors() || raw != nil {
		t.Errorf("the tool's own flavour should be refused by the schema, and only it: %s %v", raw, diags)
	} else if got := summaries(diags); len(got) != 1 {
		t.Errorf("diagnostics %v, want one for flavour", got)
	}
	if d := cfg.Displays[0]; d.Home != "" || len(d.Grants) != 0 {
		t.Errorf("display home %q grants %v, want none", d.Home, d.Grants)
	}
}

// TestCLIPresetValues pins what each command-line preset hands
// axon-provider-cli (testdata/presets/NAME.json; go test -update rewrites
// them), and its host-side defaults.
func TestCLIPresetValues(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"claude-code", "codex", "gemini-cli"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := mustParse(t, "provider \"p\" {\n  preset = \""+name+"\"\n}\n"+stubChainTail)
			p := cfg.Provider("p")
			raw, diags := DecodePluginBody(&p.PluginBlock, cliAttrs)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			var pretty map[string]any
			if err := json.Unmarshal(raw, &pretty); err != nil {
				t.Fatal(err)
			}
			out, _ := json.MarshalIndent(pretty, "", "  ")
			checkGolden(t, filepath.Join("testdata", "presets", name+".json"), string(out)+"\n")

			pr, _ := LookupPreset(name)
			if p.Plugin != PluginCLI || p.Tier != TierSub || p.Home != expandHome(pr.Home) || !p.Credential.IsZero() ||
				p.Timeouts.FirstToken != 5*time.Minute || !p.Egress.Proxy || !cmp.Equal(p.Egress.Allow, pr.Allow) {
				t.Errorf("plugin %q tier %q home %q credential %v first token %s egress %+v",
					p.Plugin, p.Tier, p.Home, p.Credential, p.Timeouts.FirstToken, p.Egress)
			}
		})
	}
}

func expandHome(p string) string { return testHome + p[1:] }

// TestCLIPresetBlockWins: a block's own plugin-owned attributes beat the
// preset's, one by one; the rest still come from the preset.
func TestCLIPresetBlockWins(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, `provider "p" {
  preset    = "claude-code"
  model     = "opus"
  command   = ["claude", "-p", "--output-format", "json", "--model", "{model}", "{prompt}"]
  timeout   = "90s"
  scrub_env = []
}
`+stubChainTail)
	raw, diags := DecodePluginBody(&cfg.Provider("p").PluginBlock, cliAttrs)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]any{
		"model":     "opus",
		"command":   []any{"claude", "-p", "--output-format", "json", "--model", "{model}", "{prompt}"},
		"timeout":   "90s",
		"scrub_env": []any{},
		"text_path": "result", // the preset's
		"env":       map[string]any{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"},
	} {
		if diff := cmp.Diff(want, got[name]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	if m := cfg.Provider("p").Model(); m != "opus" {
		t.Errorf("Model() = %q, want the block's", m)
	}
}

// TestCLIPresetsInAxonChain: a command-line preset needs no key, and a
// model only when its command passes one.
func TestCLIPresetsInAxonChain(t *testing.T) {
	t.Parallel()
	l := NewLoader(testOptions(map[string]string{"AXON_CHAIN": "claude-code,codex,gemini-cli"}))
	cfg, diags := l.Load("")
	if diags.HasErrors() {
		t.Fatalf("AXON_CHAIN of the command-line presets:\n%s", render(t, l.Files(), diags))
	}
	if len(cfg.Providers) != 3 || cfg.Providers[0].Model() != "sonnet" || cfg.Providers[1].Model() != "" {
		t.Errorf("providers %d, models %q %q", len(cfg.Providers), cfg.Providers[0].Model(), cfg.Providers[1].Model())
	}
}
