package config

import (
	"os"
	"testing"

	"github.com/axonhq/axon/sdk"
)

func BenchmarkParseWorkstation(b *testing.B) {
	text, err := os.ReadFile("../../examples/workstation.hcl")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, diags := NewLoader(testOptions(nil)).Parse("workstation.hcl", text); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}

func BenchmarkDecodePluginBodyWithPreset(b *testing.B) {
	cfg, diags := NewLoader(testOptions(nil)).Parse("axon.hcl", defaultHCL)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	block := &cfg.Providers[0].PluginBlock
	schema := sdk.Schema{Attributes: []sdk.Attribute{{Name: "base_url", Type: "string"}, {Name: "model", Type: "string"}}}
	for b.Loop() {
		if _, diags := DecodePluginBody(block, schema); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}
