package usage

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/sdk"
)

// parseConfig loads configuration text as axon would load a file.
func parseConfig(t testing.TB, src string) *config.Config {
	t.Helper()
	l := config.NewLoader(config.Options{LookupEnv: func(string) (string, bool) { return "", false }, HomeDir: "/home/pi", GOOS: "linux"})
	cfg, diags := l.Parse("/etc/axon/axon.hcl", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("config: %s", diags.Error())
	}
	return cfg
}

const pricesConfig = `
provider "claude" {
  preset = "anthropic"
  model  = "claude-sonnet-4-5"
}
provider "gpt" { preset = "openai" }
provider "router" { preset = "openrouter" }
provider "glm" {
  preset = "glm"
  pricing {
    input_per_mtok  = 0.5
    output_per_mtok = 2
  }
}
provider "glmsub" {
  preset = "glm"
  tier   = "sub"
}
provider "local" { preset = "ollama" }
provider "direct" {
  plugin   = "anthropic"
  base_url = "https://api.anthropic.com"
}
provider "vllm" {
  plugin   = "openai"
  base_url = "http://192.168.1.20:8000/v1"
}
provider "nim" { preset = "nvidia" }
chain "default" { providers = [provider.claude, provider.gpt, provider.router, provider.glm, provider.glmsub, provider.local, provider.direct, provider.vllm, provider.nim] }
`

func f(x float64) *float64 { return &x }

func TestLookup(t *testing.T) {
	t.Parallel()
	prices, err := NewPrices(parseConfig(t, pricesConfig))
	if err != nil {
		t.Fatal(err)
	}
	zero := f(0)
	for _, tc := range []struct {
		name, provider, model string
		want                  Price
		basis                 Basis
	}{
		{"the model that answered, dated", "claude", "claude-sonnet-4-5-20250929", Price{f(3), f(15), f(0.30), f(3.75)}, BasisTable},
		{"the longest row wins", "gpt", "gpt-4o-mini-2024-07-18", Price{f(0.15), f(0.60), f(0.075), nil}, BasisTable},
		{"a -latest alias", "gpt", "gpt-4.1-latest", Price{f(2), f(8), f(0.50), nil}, BasisTable},
		{"a longer name is another model", "gpt", "gpt-5-pro", Price{}, BasisUnknown},
		{"unknown model", "gpt", "gpt-17", Price{}, BasisUnknown},
		{"openrouter bills the vendor's price", "router", "anthropic/claude-sonnet-4.5", Price{f(3), f(15), f(0.30), f(3.75)}, BasisTable},
		{"openrouter, a vendor the table lacks", "router", "meta-llama/llama-3.3-70b-instruct", Price{}, BasisUnknown},
		{"pricing {} over the row", "glm", "glm-4.6", Price{f(0.5), f(2), f(0.11), nil}, BasisPricing},
		{"a subscription costs nothing per token", "glmsub", "glm-4.6", Price{zero, zero, zero, zero}, BasisTier},
		{"local costs nothing per token", "local", "qwen2.5:3b", Price{zero, zero, zero, zero}, BasisTier},
		{"no preset, a vendor's base_url", "direct", "claude-haiku-4-5", Price{f(1), f(5), f(0.10), f(1.25)}, BasisTable},
		{"no preset, a server of your own", "vllm", "gpt-oss-120b", Price{}, BasisUnknown},
		{"a preset with no list price", "nim", "meta/llama-3.3-70b-instruct", Price{}, BasisUnknown},
		{"no such provider", "nope", "gpt-5", Price{}, BasisUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, basis := prices.Lookup(tc.provider, tc.model)
			if d := cmp.Diff(tc.want, got); d != "" || basis != tc.basis {
				t.Errorf("Lookup(%q, %q) basis %q, want %q; price (-want +got):\n%s", tc.provider, tc.model, basis, tc.basis, d)
			}
		})
	}
}

func TestCostIsAbsentUnlessEveryReportedCountIsPriced(t *testing.T) {
	t.Parallel()
	n := sdk.Tokens
	p := Price{Input: f(2), Output: f(10)}
	for _, tc := range []struct {
		name string
		u    sdk.Usage
		want *float64
	}{
		{"nothing reported", sdk.Usage{}, nil},
		{"input and output", sdk.Usage{InputTokens: n(1_000_000), OutputTokens: n(500_000)}, f(7)},
		{"zero tokens are free", sdk.Usage{InputTokens: n(0), OutputTokens: n(0)}, f(0)},
		{"a count without a price", sdk.Usage{InputTokens: n(10), CacheReadTokens: n(10)}, nil},
		{"an absent count adds nothing", sdk.Usage{OutputTokens: n(100_000)}, f(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tc.want, p.Cost(tc.u)); d != "" {
				t.Errorf("Cost (-want +got):\n%s", d)
			}
		})
	}
}

func TestReference(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, axon string
		want       Reference
		err        string
	}{
		{name: "the default", want: Reference{Name: "anthropic/claude-opus-4-5", Price: Price{f(5), f(25), f(0.50), f(6.25)}}},
		{name: "a row", axon: `reference_pricing { model = "gpt-5" }`,
			want: Reference{Name: "openai/gpt-5", Price: Price{f(1.25), f(10), f(0.125), nil}}},
		{name: "a row with a price of its own", axon: "reference_pricing {\n model = \"openai/gpt-5\"\n cache_write_per_mtok = 1.25\n}",
			want: Reference{Name: "openai/gpt-5 (with reference_pricing's prices)", Price: Price{f(1.25), f(10), f(0.125), f(1.25)}}},
		{name: "prices alone", axon: "reference_pricing {\n input_per_mtok = 4\n output_per_mtok = 20\n}",
			want: Reference{Name: "reference_pricing", Price: Price{Input: f(4), Output: f(20)}}},
		{name: "not in the table", axon: `reference_pricing { model = "gpt-17" }`, err: `/etc/axon/axon.hcl:2,31-39: reference_pricing: model "gpt-17" is not in the price table`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			prices, err := NewPrices(parseConfig(t, "axon {\n  "+tc.axon+"\n}\n"+pricesConfig))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, prices.Reference()); d != "" {
				t.Errorf("reference (-want +got):\n%s", d)
			}
		})
	}
}

// The table is one row per model and vendor, every vendor reachable from
// a preset, every price non-negative and input and output known.
func TestTableRows(t *testing.T) {
	t.Parallel()
	vendors := map[string]bool{}
	for _, v := range presetVendor {
		vendors[v] = true
	}
	for _, v := range openRouterVendors {
		vendors[v] = true
	}
	seen := map[string]bool{}
	for _, r := range table {
		key := r.vendor + "/" + normModel(r.model)
		switch {
		case seen[key]:
			t.Errorf("%s: two rows", key)
		case !vendors[r.vendor]:
			t.Errorf("%s: no preset reaches vendor %q", key, r.vendor)
		case r.input < 0 || r.output < 0:
			t.Errorf("%s: input and output must be priced", key)
		}
		seen[key] = true
		if got, ok := findRow(r.vendor, r.model); !ok || got != r {
			t.Errorf("%s: findRow finds %v %v", key, got, ok)
		}
	}
	for name, v := range presetVendor {
		if _, ok := config.LookupPreset(name); !ok || v == "" {
			t.Errorf("presetVendor[%q]: no such preset", name)
		}
	}
}
