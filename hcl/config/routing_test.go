package config

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestRoutingAttributes: strategy, classifier, enabled, budget and billing
// decode to what routing reads; left out, they are the defaults (ordered,
// no classifier, billing off, nothing disabled, no budget).
func TestRoutingAttributes(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, `
axon {
  billing { enabled = true }
}
provider "local" { preset = "ollama" }
provider "gpt" {
  preset  = "openai"
  model   = "gpt-4o"
  enabled = true
  budget { usd_per_month = 12.5 }
}
chain "default" {
  providers = [provider.local, provider.gpt]
  strategy  = "lowest_cost"
  classifier {
    provider = provider.local
    timeout  = "800ms"
  }
}
chain "plain" { providers = [provider.local] }
`)
	if !cfg.Axon.Billing.Enabled {
		t.Error("billing is off")
	}
	gpt := cfg.Provider("gpt")
	if gpt.Tier != TierAPI || gpt.Enabled == nil || !*gpt.Enabled || gpt.Budget == nil || gpt.Budget.USDPerMonth != 12.5 {
		t.Errorf("gpt: tier %q enabled %v budget %+v", gpt.Tier, gpt.Enabled, gpt.Budget)
	}
	if local := cfg.Provider("local"); local.Enabled != nil || local.Budget != nil {
		t.Errorf("local: enabled %v budget %+v, want neither", local.Enabled, local.Budget)
	}
	want := &Classifier{Provider: "local", Timeout: 800 * time.Millisecond}
	if diff := cmp.Diff(want, cfg.Chain("default").Classifier, cmpopts.IgnoreFields(Classifier{}, "ProviderRange", "DefRange")); diff != "" {
		t.Errorf("classifier (-want +got):\n%s", diff)
	}
	if got := cfg.Chain("default").Strategy; got != StrategyLowestCost {
		t.Errorf("strategy %q", got)
	}
	if plain := cfg.Chain("plain"); plain.Strategy != StrategyOrdered || plain.Classifier != nil {
		t.Errorf("defaults: strategy %q classifier %+v", plain.Strategy, plain.Classifier)
	}
	if cl := mustParse(t, "provider \"l\" { preset = \"ollama\" }\nchain \"default\" {\n  providers = [provider.l]\n  classifier { provider = \"l\" }\n}\n").Chains[0].Classifier; cl.Timeout != DefaultClassifierTimeout {
		t.Errorf("classifier timeout %s, want the default", cl.Timeout)
	}
}

// TestGate: an api tier passes only with billing on and its own enabled =
// true; anything else unless enabled = false. A non-boolean is an error
// (testdata/broken/routing.hcl), so it never reaches the gate.
func TestGate(t *testing.T) {
	t.Parallel()
	yes, no := ptr(true), ptr(false)
	for _, tc := range []struct {
		name    string
		tier    Tier
		billing bool
		enabled *bool
		want    string
	}{
		{"api, billing off", TierAPI, false, nil, GatePaid},
		{"api, billing off, enabled", TierAPI, false, yes, GatePaid},
		{"api, billing on, enabled unset", TierAPI, true, nil, GatePaid},
		{"api, billing on, enabled", TierAPI, true, yes, ""},
		{"api, billing on, disabled", TierAPI, true, no, GateDisabled},
		{"sub", TierSub, false, nil, ""},
		{"sub, disabled", TierSub, true, no, GateDisabled},
		{"local, enabled", TierLocal, false, yes, ""},
		{"no tier", TierUnset, false, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := &Config{Axon: Axon{Billing: Billing{Enabled: tc.billing}}}
			if got := cfg.Gate(&Provider{Tier: tc.tier, Enabled: tc.enabled}); got != tc.want {
				t.Errorf("Gate = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPresetTiers: the presets that only bill per token are tier "api",
// behind the paid gate; a block's own tier wins.
func TestPresetTiers(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"openai", "anthropic", "openrouter", "deepseek", "xai"} {
		if p, _ := LookupPreset(name); p.Tier != TierAPI {
			t.Errorf("preset %s: tier %q, want api", name, p.Tier)
		}
	}
	for _, name := range []string{"glm", "groq", "cerebras", "gemini", "github", "mistral", "nvidia"} {
		if p, _ := LookupPreset(name); p.Tier != TierUnset {
			t.Errorf("preset %s: tier %q, want none (free tier or subscription: the block says)", name, p.Tier)
		}
	}
	cfg := mustParse(t, "provider \"c\" {\n  preset = \"anthropic\"\n  tier = \"sub\"\n}\nchain \"default\" { providers = [provider.c] }\n")
	if got := cfg.Provider("c").Tier; got != TierSub {
		t.Errorf("a block's tier: %q", got)
	}
}
