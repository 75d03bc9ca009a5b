package broker

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// binDir holds the real plugin binaries the end-to-end tests launch.
var binDir string

var plugins = map[string]string{
	"axon-provider-openai":    "../../plugins/provider-openai",
	"axon-provider-anthropic": "../../plugins/provider-anthropic",
	"axon-display-png":        "../../plugins/display-png",
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "axon-broker-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	for bin, pkg := range plugins {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, bin), pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", pkg, err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
