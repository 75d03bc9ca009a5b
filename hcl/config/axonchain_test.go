package config

import (
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAxonChain(t *testing.T) {
	t.Parallel()
	type hop struct {
		Name, Preset, Credential, Model string
	}
	tests := []struct {
		name      string
		env       map[string]string
		want      []hop    // providers of chain "default", in order
		wantDiags []string // summaries(diags)
	}{
		{
			name: "three presets with keys and models",
			env: map[string]string{
				"AXON_CHAIN": "glm,ollama,gemini", "GLM_API_KEY": "k1", "GLM_MODEL": "glm-4.6", "GEMINI_API_KEY": "k2",
			},
			want: []hop{
				{"glm", "glm", "env:GLM_API_KEY", "glm-4.6"},
				{"ollama", "ollama", "none", "qwen2.5:3b"},
				{"gemini", "gemini", "env:GEMINI_API_KEY", "gemini-flash-latest"},
			},
		},
		{
			name: "the preset's own key variable is accepted",
			env:  map[string]string{"AXON_CHAIN": "glm", "ZAI_API_KEY": "k", "GLM_MODEL": "glm-4.6"},
			want: []hop{{"glm", "glm", "env:ZAI_API_KEY", "glm-4.6"}},
		},
		{
			name: "a dashed preset name reads underscored variables",
			env:  map[string]string{"AXON_CHAIN": "gemini-native", "GEMINI_NATIVE_API_KEY": "k", "GEMINI_NATIVE_MODEL": "gemini-2.5-flash"},
			want: []hop{{"gemini-native", "gemini-native", "env:GEMINI_NATIVE_API_KEY", "gemini-2.5-flash"}},
		},
		{
			name: "<PRESET>_API_KEY wins over the preset's own variable",
			env:  map[string]string{"AXON_CHAIN": "github", "GITHUB_API_KEY": "a", "GITHUB_TOKEN": "b", "GITHUB_MODEL": "openai/gpt-4.1"},
			want: []hop{{"github", "github", "env:GITHUB_API_KEY", "openai/gpt-4.1"}},
		},
		{
			name: "model from the environment overrides the preset's",
			env:  map[string]string{"AXON_CHAIN": "ollama", "OLLAMA_MODEL": "llama3.2:1b"},
			want: []hop{{"ollama", "ollama", "none", "llama3.2:1b"}},
		},
		{
			name: "spaces, case, blanks and duplicates",
			env:  map[string]string{"AXON_CHAIN": " Ollama , ,glm,,OLLAMA,", "GLM_API_KEY": "k", "GLM_MODEL": "g"},
			want: []hop{{"ollama", "ollama", "none", "qwen2.5:3b"}, {"glm", "glm", "env:GLM_API_KEY", "g"}},
			wantDiags: []string{
				"warning: Blank AXON_CHAIN entry dropped @$AXON_CHAIN:1:10",
				"warning: Blank AXON_CHAIN entry dropped @$AXON_CHAIN:1:16",
				"warning: Repeated AXON_CHAIN entry dropped @$AXON_CHAIN:1:17",
				"warning: Blank AXON_CHAIN entry dropped @$AXON_CHAIN:1:24",
			},
		},
		{
			name:      "unknown preset",
			env:       map[string]string{"AXON_CHAIN": "ollama,olama"},
			wantDiags: []string{"error: Unknown preset in AXON_CHAIN @$AXON_CHAIN:1:8"},
		},
		{
			name:      "empty list",
			env:       map[string]string{"AXON_CHAIN": ""},
			wantDiags: []string{"error: Empty AXON_CHAIN @$AXON_CHAIN:1:1"},
		},
		{
			name: "only commas",
			env:  map[string]string{"AXON_CHAIN": " , "},
			wantDiags: []string{
				"warning: Blank AXON_CHAIN entry dropped @$AXON_CHAIN:1:1",
				"warning: Blank AXON_CHAIN entry dropped @$AXON_CHAIN:1:3",
				"error: Empty AXON_CHAIN @$AXON_CHAIN:1:1",
			},
		},
		{
			name:      "missing key",
			env:       map[string]string{"AXON_CHAIN": "gemini"},
			wantDiags: []string{"error: Missing API key for AXON_CHAIN preset @$AXON_CHAIN:1:1"},
		},
		{
			name:      "blank key counts as missing",
			env:       map[string]string{"AXON_CHAIN": "gemini", "GEMINI_API_KEY": "  "},
			wantDiags: []string{"error: Missing API key for AXON_CHAIN preset @$AXON_CHAIN:1:1"},
		},
		{
			name:      "missing model",
			env:       map[string]string{"AXON_CHAIN": "ollama,openai", "OPENAI_API_KEY": "k"},
			wantDiags: []string{"warning: Paid preset in AXON_CHAIN @$AXON_CHAIN:1:8", "error: Missing model for AXON_CHAIN preset @$AXON_CHAIN:1:8"},
		},
		{
			name:      "model with HCL template characters is kept literally",
			env:       map[string]string{"AXON_CHAIN": "ollama", "OLLAMA_MODEL": `odd${x}"name`},
			want:      []hop{{"ollama", "ollama", "none", `odd${x}"name`}},
			wantDiags: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := NewLoader(Options{LookupEnv: mapEnv(tc.env), GOOS: "linux"})
			cfg, diags := l.Load("")
			if diff := cmp.Diff(tc.wantDiags, summaries(diags)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\n%s", diff, render(t, l.Files(), diags))
			}
			if tc.want == nil {
				if cfg != nil && diags.HasErrors() {
					t.Error("a Config was returned alongside errors")
				}
				return
			}
			if cfg == nil {
				t.Fatal("no config")
			}
			if cfg.Source.Kind != SourceAxonChain {
				t.Errorf("source = %v, want AXON_CHAIN", cfg.Source)
			}
			var got []hop
			for _, name := range cfg.Chain(DefaultChain).Providers {
				p := cfg.Provider(name)
				got = append(got, hop{p.Name, p.Preset, p.Credential.String(), p.Model()})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("chain (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAxonChainDiagnosticText: a diagnostic about $AXON_CHAIN prints the
// value with carets under the entry it is about, then its detail and the
// did-you-mean it has.
func TestAxonChainDiagnosticText(t *testing.T) {
	t.Parallel()
	presets := "Presets: " + strings.Join(PresetNames(), ", ") + "."
	keyed := map[string]string{"GLM_API_KEY": "k", "GLM_MODEL": "glm-4.6"}
	tests := []struct {
		name, value string
		env         map[string]string
		want        string
	}{
		{
			name: "a misspelt preset", value: "glm,olama", env: keyed,
			want: `Error: Unknown preset in AXON_CHAIN

  on $AXON_CHAIN line 1:
   1: glm,olama
          ^^^^^

There is no preset "olama". Did you mean "ollama"? ` + presets + "\n\n",
		},
		{
			name: "a blank entry and an unknown one", value: "glm,,x", env: keyed,
			want: `Warning: Blank AXON_CHAIN entry dropped

  on $AXON_CHAIN line 1:
   1: glm,,x
          ^

$AXON_CHAIN has an empty entry between commas; it is ignored.

Error: Unknown preset in AXON_CHAIN

  on $AXON_CHAIN line 1:
   1: glm,,x
           ^

There is no preset "x". Did you mean "xai"? ` + presets + "\n\n",
		},
		{
			name: "an unknown preset like no other, among spaces", value: " ollama, nope ",
			want: `Error: Unknown preset in AXON_CHAIN

  on $AXON_CHAIN line 1:
   1:  ollama, nope 
               ^^^^

There is no preset "nope". ` + presets + "\n\n",
		},
		{
			name: "a preset without its key and model", value: "ollama,glm",
			want: `Error: Missing API key for AXON_CHAIN preset

  on $AXON_CHAIN line 1:
   1: ollama,glm
             ^^^

Preset "glm" needs a key: set GLM_API_KEY (or ZAI_API_KEY). axon reads it only when it calls the provider and never prints it.

Error: Missing model for AXON_CHAIN preset

  on $AXON_CHAIN line 1:
   1: ollama,glm
             ^^^

Preset "glm" has no default model: set GLM_MODEL to the model to use.

`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"AXON_CHAIN": tc.value}
			for k, v := range tc.env {
				env[k] = v
			}
			l := NewLoader(Options{LookupEnv: mapEnv(env)})
			_, diags := l.Load("")
			if diff := cmp.Diff(tc.want, render(t, l.Files(), diags)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAxonChainBilling: a metered preset in AXON_CHAIN stays behind the
// paid gate (with a warning saying how to open it) unless AXON_BILLING=on,
// which opens the gate for the generated chain; any other value is an
// error, never a yes.
func TestAxonChainBilling(t *testing.T) {
	t.Parallel()
	base := map[string]string{"AXON_CHAIN": "ollama,openai", "OPENAI_API_KEY": "k", "OPENAI_MODEL": "gpt-4o-mini"}
	with := func(v string) map[string]string {
		m := maps.Clone(base)
		m["AXON_BILLING"] = v
		return m
	}
	for _, tc := range []struct {
		name      string
		env       map[string]string
		wantGate  string
		wantDiags []string
	}{
		{"unset", base, GatePaid, []string{"warning: Paid preset in AXON_CHAIN @$AXON_CHAIN:1:8"}},
		{"off", with("off"), GatePaid, []string{"warning: Paid preset in AXON_CHAIN @$AXON_CHAIN:1:8"}},
		{"on", with("on"), "", nil},
		{"1", with("1"), "", nil},
		{"not a boolean", with("yes please"), "", []string{"error: Invalid AXON_BILLING", "warning: Paid preset in AXON_CHAIN @$AXON_CHAIN:1:8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := NewLoader(Options{LookupEnv: mapEnv(tc.env), GOOS: "linux"})
			cfg, diags := l.Load("")
			if diff := cmp.Diff(tc.wantDiags, summaries(diags)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\n%s", diff, render(t, l.Files(), diags))
			}
			if diags.HasErrors() {
				return
			}
			if got := cfg.Gate(cfg.Provider("openai")); got != tc.wantGate {
				t.Errorf("openai's gate = %q, want %q", got, tc.wantGate)
			}
			if got := cfg.Gate(cfg.Provider("ollama")); got != "" {
				t.Errorf("ollama's gate = %q, want open", got)
			}
		})
	}
}
