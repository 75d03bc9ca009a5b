package config

import (
	"strings"
	"testing"
	"time"
)

// TestResponsesRetention: axon { responses { retention } } is an age;
// without it the store's own default holds (0 here).
func TestResponsesRetention(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, block string
		want        time.Duration
		err         string
	}{
		{"absent", "", 0, ""},
		{"empty block", "responses {}", 0, ""},
		{"days", `responses { retention = "7d" }`, 7 * 24 * time.Hour, ""},
		{"days and hours", `responses { retention = "1d12h" }`, 36 * time.Hour, ""},
		{"not an age", `responses { retention = "soon" }`, 0, "is not an age"},
		{"a bare number (HCL makes it a string)", `responses { retention = 7 }`, 0, "want a number with a unit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := "axon {\n  " + tc.block + "\n}\nprovider \"p\" { preset = \"ollama\" }\nchain \"default\" { providers = [provider.p] }\n"
			cfg, diags, l := parse(t, src)
			if tc.err != "" {
				if !diags.HasErrors() || !strings.Contains(render(t, l.Files(), diags), tc.err) {
					t.Fatalf("want %q, got:\n%s", tc.err, render(t, l.Files(), diags))
				}
				return
			}
			if diags.HasErrors() {
				t.Fatalf("diagnostics:\n%s", render(t, l.Files(), diags))
			}
			if got := cfg.Axon.Responses.Retention; got != tc.want {
				t.Errorf("retention %v, want %v", got, tc.want)
			}
		})
	}
}
