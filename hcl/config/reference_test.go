package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

func TestReferencePricing(t *testing.T) {
	t.Parallel()
	f := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		name  string
		src   string
		want  Reference
		diags []string
	}{
		{name: "absent", src: `axon {}`, want: Reference{}},
		{name: "a table row", src: "axon {\n  reference_pricing { model = \"anthropic/claude-sonnet-4-5\" }\n}",
			want: Reference{Model: "anthropic/claude-sonnet-4-5"}},
		{name: "prices of its own", src: "axon {\n  reference_pricing {\n    input_per_mtok = 3\n    output_per_mtok = 15\n  }\n}",
			want: Reference{Pricing: Pricing{InputPerMTok: f(3), OutputPerMTok: f(15)}}},
		{name: "a row with a price over it", src: "axon {\n  reference_pricing {\n    model = \"gpt-5\"\n    cache_write_per_mtok = 1.25\n  }\n}",
			want: Reference{Model: "gpt-5", Pricing: Pricing{CacheWritePerMTok: f(1.25)}}},
		{name: "neither", src: "axon {\n  reference_pricing { input_per_mtok = 3 }\n}",
			diags: []string{"error: Incomplete reference_pricing @/etc/axon/axon.hcl:2:3"}},
		{name: "negative", src: "axon {\n  reference_pricing {\n    model = \"gpt-5\"\n    output_per_mtok = -1\n  }\n}",
			diags: []string{`error: Invalid value for "output_per_mtok" @/etc/axon/axon.hcl:4:23`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, diags, _ := parse(t, tc.src+"\nprovider \"local\" { preset = \"ollama\" }\nchain \"default\" { providers = [provider.local] }\n")
			if d := cmp.Diff(tc.diags, summaries(diags)); d != "" {
				t.Fatalf("diagnostics (-want +got):\n%s", d)
			}
			if tc.diags != nil {
				return
			}
			got := cfg.Axon.ReferencePricing
			got.ModelRange, got.DefRange = hcl.Range{}, hcl.Range{}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("reference (-want +got):\n%s", d)
			}
		})
	}
}
