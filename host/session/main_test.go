package session

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// binDir holds the real binaries the crash harness runs: axon built with
// -tags failpoints, and the openai provider and notes tool plugins.
var binDir string

var binaries = []struct{ name, pkg, tags string }{
	{"axon", "../cmd/axon", "failpoints"},
	{"axon-provider-openai", "../../plugins/provider-openai", ""},
	{"axon-tool-notes", "../../plugins/tool-notes", ""},
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "axon-session-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	for _, b := range binaries {
		cmd := exec.Command("go", "build", "-tags", b.tags, "-o", filepath.Join(dir, b.name), b.pkg)
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", b.pkg, err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
