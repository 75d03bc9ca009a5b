package config

import (
	"strings"
	"testing"
)

// TestStructuredOutput: structured_output is absent (nil: the plugin's
// Info.Output decides) unless the block sets it, and only a real boolean
// is accepted.
func TestStructuredOutput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, attr string
		want       string // "nil", "true", "false", or "error"
	}{
		{"absent", "", "nil"},
		{"true", "structured_output = true", "true"},
		{"false", "structured_output = false", "false"},
		{"a string is not a boolean", `structured_output = "true"`, "error"},
		{"a number is not a boolean", "structured_output = 1", "error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := "provider \"p\" {\n  preset = \"ollama\"\n  " + tc.attr + "\n}\nchain \"default\" { providers = [provider.p] }\n"
			cfg, diags, l := parse(t, src)
			if tc.want == "error" {
				if !diags.HasErrors() || !strings.Contains(render(t, l.Files(), diags), `Invalid value for "structured_output"`) {
					t.Fatalf("want an invalid structured_output error, got:\n%s", render(t, l.Files(), diags))
				}
				return
			}
			if diags.HasErrors() {
				t.Fatalf("diagnostics:\n%s", render(t, l.Files(), diags))
			}
			got := "nil"
			if p := cfg.Provider("p").StructuredOutput; p != nil {
				got = map[bool]string{true: "true", false: "false"}[*p]
			}
			if got != tc.want {
				t.Errorf("structured_output = %s, want %s", got, tc.want)
			}
		})
	}
}

// A preset whose vendor cannot guarantee a schema makes structured_output
// false unless the block says otherwise.
func TestStructuredOutputPresetDefault(t *testing.T) {
	t.Parallel()
	for attr, want := range map[string]bool{"": false, "structured_output = true": true} {
		cfg, diags, l := parse(t, "provider \"d\" {\n  preset = \"deepseek\"\n  model = \"deepseek-chat\"\n  "+attr+"\n}\nchain \"default\" { providers = [provider.d] }\n")
		if diags.HasErrors() {
			t.Fatalf("diagnostics:\n%s", render(t, l.Files(), diags))
		}
		if p := cfg.Provider("d").StructuredOutput; p == nil || *p != want {
			t.Errorf("deepseek with %q: structured_output %v, want %v", attr, p, want)
		}
	}
}
