package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/hardware/ssd1680/ssd1680test"
	axonhcl "github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/sdk"
)

// TestPiPetExample decodes the display block of examples/pi-pet.hcl against
// this plugin's schema, as the host does, and configures the plugin with it:
// the example a Pi deployer copies must work as written.
func TestPiPetExample(t *testing.T) {
	t.Parallel()
	const path = "../../examples/pi-pet.hcl"
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, diags := axonhcl.NewLoader(axonhcl.Options{GOOS: "linux"}).Parse(path, text)
	if diags.HasErrors() {
		t.Fatalf("%s: %s", path, diags.Error())
	}
	var block *axonhcl.Display
	for _, d := range cfg.Displays {
		if d.Plugin == "epd" {
			block = d
		}
	}
	if block == nil {
		t.Fatalf("%s has no display block for the epd plugin", path)
	}
	p := ssd1680test.New(ssd1680test.Options{})
	b := &fakeBoard{panel: p}
	e := newEPD(b, p.Clock)
	values, diags := axonhcl.DecodePluginBody(&block.PluginBlock, e.Info().Config)
	if diags.HasErrors() {
		t.Fatalf("display %q: %s", block.Name, diags.Error())
	}
	// The state file's directory must be one the block grants read_write
	// (the sandbox shows the plugin nothing else); here it is a temporary
	// one, as /var/lib/axon/epd exists only on the Pi.
	var v map[string]any
	if err := json.Unmarshal(values, &v); err != nil {
		t.Fatal(err)
	}
	state, _ := v["state_file"].(string)
	if !slices.Contains(block.Grants, axonhcl.Grant{Path: filepath.Dir(state), Mode: "rw"}) {
		t.Errorf("state_file %q: its directory is not among the block's grants %v", state, block.Grants)
	}
	if block.IdleStop <= 0 {
		t.Error("the example's display has no idle_stop: the idle Pi would keep the plugin running")
	}
	v["state_file"] = filepath.Join(t.TempDir(), "glass.json")
	if values, err = json.Marshal(v); err != nil {
		t.Fatal(err)
	}
	if err := e.Configure(context.Background(), sdk.Config{Values: values}); err != nil {
		t.Fatalf("Configure with the example: %v", err)
	}
	defer e.Close()
	want := config{
		Panel: "v4", SPIPort: "SPI0.0", DCPin: "GPIO25", RSTPin: "GPIO17", BusyPin: "GPIO24",
		FullRefreshEvery: 20, FullRefreshInterval: "1h", BusyTimeout: "10s", StateFile: v["state_file"].(string),
	}
	if diff := cmp.Diff(&want, b.opened); diff != "" {
		t.Errorf("the example opens (-want +got):\n%s", diff)
	}
}
