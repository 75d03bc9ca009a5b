package config

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/axonhq/axon/hcl/credref"
	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

// TestPresetTable checks every row for the invariants the host relies on.
func TestPresetTable(t *testing.T) {
	t.Parallel()
	upperVar := regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
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
			if p.Docs == "" {
				t.Error("no docs link")
			}

			// Every preset loads as a provider with nothing else set.
			cfg := mustParse(t, fmt.Sprintf("provider %q {\n  preset = %q\n  model = \"m\"\n}\nchain \"default\" {\n  providers = [provider.%s]\n}\n", p.Name, p.Name, p.Name))
			got := cfg.Provider(p.Name)
			if got.Plugin != p.Plugin || got.BaseURL() != p.BaseURL {
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
		{"deepseek", Preset{Plugin: "openai", BaseURL: "https://api.deepseek.com", Auth: sdk.Auth{Scheme: sdk.AuthBearer}, KeyEnv: "DEEPSEEK_API_KEY", Tier: TierAPI}},
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
	want := []string{"openai", "anthropic", "glm", "ollama", "openrouter", "groq", "cerebras", "nvidia", "mistral", "github", "gemini", "gemini-native", "deepseek", "xai"}
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
}
