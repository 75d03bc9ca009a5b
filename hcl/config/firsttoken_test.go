package config

import (
	"testing"
	"time"
)

// TestFirstTokenByTier: a provider block that sets no first_token gets a
// bound suited to where the model runs; the block always wins.
func TestFirstTokenByTier(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, block string
		want        time.Duration
	}{
		{"hosted preset", `preset = "glm"`, DefaultHostedFirstToken},
		{"hosted preset, metered", `preset = "openai"`, DefaultHostedFirstToken},
		{"local preset", `preset = "ollama"`, 3 * time.Minute},
		{"a local preset declared hosted is hosted", "preset = \"ollama\"\n  tier = \"api\"", DefaultHostedFirstToken},
		{"no preset, tier local", "plugin = \"openai\"\n  base_url = \"http://127.0.0.1:8080/v1\"\n  tier = \"local\"", DefaultLocalFirstToken},
		{"no preset, tier sub", "plugin = \"openai\"\n  base_url = \"https://llm.example.com/v1\"\n  tier = \"sub\"", DefaultHostedFirstToken},
		{"no preset, no tier: unknown", "plugin = \"openai\"\n  base_url = \"https://llm.example.com/v1\"", DefaultFirstToken},
		{"the block overrides the tier", "preset = \"glm\"\n  timeouts { first_token = \"45s\" }", 45 * time.Second},
		{"the block overrides a local preset", "preset = \"ollama\"\n  timeouts { first_token = \"10m\" }", 10 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := mustParse(t, "provider \"p\" {\n  "+tc.block+"\n}\nchain \"default\" { providers = [provider.p] }\n")
			if got := cfg.Provider("p").Timeouts.FirstToken; got != tc.want {
				t.Errorf("first_token = %s, want %s", got, tc.want)
			}
		})
	}
}
