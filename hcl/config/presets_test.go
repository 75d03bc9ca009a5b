package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/axonhq/axon/hcl/credref"
	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"
)

// TestPresetTable checks every row for the invariants the host relies on.
func TestPresetTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, p := range Presets() {
		t.Run(p.Name, func(t *testing.T) {
			if seen[p.Name] {
				t.Fatal("duplicate preset")
			}
			seen[p.Name] = true
			if !pluginName.MatchString(p.Name) {
				t.Errorf("name %q is not lower-case", p.Name)
			}
			if p.Plugin == PluginCLI {
				checkCLIPreset(t, p)
			} else {
				checkHTTPPreset(t, p)
			}
			if p.Docs == "" {
				t.Error("no docs link")
			}

			// Every preset loads as a provider with nothing else set.
			cfg := mustParse(t, fmt.Sprintf("provider %q {\n  preset = %q\n  model = \"m\"\n}\nchain \"default\" {\n  providers = [provider.%s]\n}\n", p.Name, p.Name, p.Name))
			got := cfg.Provider(p.Name)
			if got.Plugin != p.Plugin || got.BaseURL() != p.BaseURL || got.Tier != p.Tier {
				t.Errorf("loaded plugin %q base_url %q, want %q %q", got.Plugin, got.BaseURL(), p.Plugin, p.BaseURL)
			}
			if p.KeyEnv != "" && got.Credential != credref.MustParse("env:"+p.KeyEnv) {
				t.Errorf("credential = %v, want env:%s", got.Credential, p.KeyEnv)
			}
			if p.KeyEnv == "" && !got.Credential.IsZero() {
				t.Errorf("credential = %v, want none", got.Credential)
			}
		})
	}
}

func checkHTTPPreset(t *testing.T, p Preset) {
	t.Helper()
	upperVar := regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	if p.Plugin != "openai" && p.Plugin != "anthropic" && p.Plugin != "gemini" {
		t.Errorf("plugin %q is not a first-party provider plugin", p.Plugin)
	}
	u, err := checkBaseURL(p.BaseURL)
	if err != nil {
		t.Fatalf("base_url %q: %v", p.BaseURL, err)
	}
	if u.Scheme != "https" && !isLoopback(u.Hostname()) {
		t.Errorf("base_url %q sends a credential over plain http", p.BaseURL)
	}
	switch {
	case p.KeyEnv == "":
		if p.Auth.Scheme != sdk.AuthNone {
			t.Errorf("no key but auth scheme %q", p.Auth.Scheme)
		}
	case !upperVar.MatchString(p.KeyEnv):
		t.Errorf("key variable %q is not an environment variable name", p.KeyEnv)
	case p.Auth.Scheme == sdk.AuthBearer && p.Auth.Name != "":
		t.Errorf("bearer auth with a name %q", p.Auth.Name)
	case (p.Auth.Scheme == sdk.AuthHeader || p.Auth.Scheme == sdk.AuthQuery) && p.Auth.Name == "":
		t.Errorf("auth scheme %q without a name", p.Auth.Scheme)
	case p.Auth.Scheme == sdk.AuthNone:
		t.Errorf("key %s but no auth scheme", p.KeyEnv)
	}
	if len(p.Values) > 0 || len(p.Allow) > 0 || p.Proxy || p.Home != "" || p.Login != "" || p.WrittenFor != "" {
		t.Error("an HTTP preset sets command-line client fields")
	}
}

// cliAttrs is the schema of axon-provider-cli's plugin-owned attributes,
// as the presets fill them.
var cliAttrs = sdk.Schema{Attributes: []sdk.Attribute{
	{Name: "command", Type: "list(string)"},
	{Name: "path", Type: "string"},
	{Name: "model", Type: "string"},
	{Name: "parse", Type: "string"},
	{Name: "text_path", Type: "string"},
	{Name: "result_path", Type: "string"},
	{Name: "error_path", Type: "string"},
	{Name: "input_tokens_path", Type: "string"},
	{Name: "output_tokens_path", Type: "string"},
	{Name: "auth_patterns", Type: "list(string)"},
	{Name: "quota_patterns", Type: "list(string)"},
	{Name: "auth_exit_codes", Type: "list(number)"},
	{Name: "quota_exit_codes", Type: "list(number)"},
	{Name: "scrub_env", Type: "list(string)"},
	{Name: "env", Type: "map(string)"},
	{Name: "timeout", Type: "string"},
	{Name: "prompt_via", Type: "string"},
}}

// checkCLIPreset holds a command-line client's row to what the host and
// axon-provider-cli rely on: no key and no base_url, a home, the proxy to
// a non-empty allow list, a version, and values of the plugin's types.
func checkCLIPreset(t *testing.T, p Preset) {
	t.Helper()
	if p.BaseURL != "" || p.KeyEnv != "" || p.Auth != (sdk.Auth{}) {
		t.Error("a command-line client's credential is its own login: no base_url, key or auth")
	}
	if p.Tier != TierSub || !p.Proxy || len(p.Allow) == 0 || p.WrittenFor == "" || p.Login == "" {
		t.Errorf("tier %q proxy %v allow %v written for %q login %q: want sub, the proxy to some hosts, a version and a login", p.Tier, p.Proxy, p.Allow, p.WrittenFor, p.Login)
	}
	if !strings.HasPrefix(p.Home, "~/.config/axon/") {
		t.Errorf("home %q is not under ~/.config/axon/", p.Home)
	}
	for _, a := range p.Allow {
		if err := checkOrigin(a); err != nil || strings.Contains(a, "*") {
			t.Errorf("allow %q: %v (and no wildcards)", a, err)
		}
	}
	for name, v := range p.Values {
		if !slices.ContainsFunc(cliAttrs.Attributes, func(a sdk.Attribute) bool { return a.Name == name }) {
			t.Errorf("value %q is not an attribute of axon-provider-cli", name)
			continue
		}
		if strings.HasSuffix(name, "_patterns") {
			for it := v.ElementIterator(); it.Next(); {
				_, pat := it.Element()
				if _, err := regexp.Compile(pat.AsString()); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
		}
	}
	cmd := p.Values["command"]
	if cmd == cty.NilVal || cmd.LengthInt() == 0 {
		t.Fatal("no command")
	}
	if parse := p.Values["parse"]; parse == cty.NilVal || !slices.Contains([]string{"text", "json", "jsonl"}, parse.AsString()) {
		t.Errorf("parse = %#v, want text, json or jsonl", parse)
	}
	if d, err := time.ParseDuration(p.Values["timeout"].AsString()); err != nil || d > p.FirstToken {
		t.Errorf("timeout %v (%v) outlasts the first-token bound %s", d, err, p.FirstToken)
	}
	if p.commandUses("{model}") != (p.Model != "") {
		t.Errorf("command %#v and default model %q disagree", cmd, p.Model)
	}
}

// TestPresetRows pins the rows other code and the README rely on.
func TestPresetRows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want Preset
	}{
		{"anthropic", Preset{Plugin: "anthropic", BaseURL: "https://api.anthropic.com", Auth: sdk.Auth{Scheme: sdk.AuthHeader, Name: "x-api-key"}, KeyEnv: "ANTHROPIC_API_KEY", Tier: TierAPI}},
		{"glm", Preset{Plugin: "anthropic", BaseURL: "https://api.z.ai/api/anthropic", Auth: sdk.Auth{Scheme: sdk.AuthBearer}, KeyEnv: "ZAI_API_KEY"}},
		{"ollama", Preset{Plugin: "openai", BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5:3b", Tier: TierLocal}},
		{"gemini", Preset{Plugin: "openai", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", Auth: sdk.Auth{Scheme: sdk.AuthBearer}, KeyEnv: "GEMINI_API_KEY", Model: "gemini-flash-latest"}},
		{"gemini-native", Preset{Plugin: "gemini", BaseURL: "https://generativelanguage.googleapis.com", Auth: sdk.Auth{Scheme: sdk.AuthHeader, Name: "x-goog-api-key"}, KeyEnv: "GEMINI_API_KEY", Model: "gemini-flash-latest"}},
		{"openai", Preset{Plugin: "openai", BaseURL: "https://api.openai.com/v1", Auth: sdk.Auth{Scheme: sdk.AuthBearer}, KeyEnv: "OPENAI_API_KEY", Tier: TierAPI}},
		{"deepseek", Preset{Plugin: "openai", BaseURL: "https://api.deepseek.com", Auth: sdk.Auth{Scheme: sdk.AuthBearer}, KeyEnv: "DEEPSEEK_API_KEY", Tier: TierAPI, NoStructuredOutput: true}},
		{"github", Preset{Plugin: "openai", BaseURL: "https://models.github.ai/inference", Auth: sdk.Auth{Scheme: sdk.AuthBearer}, KeyEnv: "GITHUB_TOKEN"}},
	}
	for _, tc := range tests {
		got, ok := LookupPreset(tc.name)
		if !ok {
			t.Errorf("preset %q missing", tc.name)
			continue
		}
		got.Name, got.Docs, got.FirstToken, got.Response = "", "", 0, 0
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("preset %q (-want +got):\n%s", tc.name, diff)
		}
	}
	want := []string{"openai", "anthropic", "glm", "ollama", "openrouter", "groq", "cerebras", "nvidia", "mistral", "github", "gemini", "gemini-native", "deepseek", "xai",
		"claude-code", "codex", "gemini-cli"}
	if diff := cmp.Diff(want, PresetNames()); diff != "" {
		t.Errorf("preset names (-want +got):\n%s", diff)
	}
	if _, ok := LookupPreset("olama"); ok {
		t.Error("LookupPreset found a misspelt preset")
	}
	// Presets returns a copy: the table cannot be changed from outside.
	Presets()[0].BaseURL = "https://evil.example"
	if p, _ := LookupPreset("openai"); p.BaseURL != "https://api.openai.com/v1" {
		t.Error("Presets exposed the table itself")
	}
	for _, p := range Presets() {
		if p.Name == "claude-code" {
			p.Values["command"] = strList("evil")
			p.Allow[0] = "evil.example"
		}
	}
	if p, _ := LookupPreset("claude-code"); p.Values["command"].Equals(strList("evil")).True() || p.Allow[0] != "api.anthropic.com" {
		t.Error("Presets shares the table's maps or slices")
	}
}
