// Package testbin builds the real binaries (axon, plugins) that the host's
// tests run as subprocesses: claims about processes are tested with
// processes. It is for TestMain functions only.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Target is one binary: Name in the output directory, built from the
// package at Pkg (relative to the test's package) with build Tags.
type Target struct{ Name, Pkg, Tags string }

// BuildInto builds every target into dir.
func BuildInto(dir string, targets ...Target) error {
	for _, t := range targets {
		args := []string{"build", "-o", filepath.Join(dir, t.Name)}
		if t.Tags != "" {
			args = append(args, "-tags", t.Tags)
		}
		cmd := exec.Command("go", append(args, t.Pkg)...)
		// Static, as `make build` ships them, even when the tests run with cgo (-race).
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %w\n%s", t.Pkg, err, out)
		}
	}
	return nil
}

// Main builds targets into a fresh temporary directory, stores its path in
// *dir, runs the tests and removes the directory. Call it as the whole of
// TestMain; it does not return.
func Main(m *testing.M, dir *string, targets ...Target) {
	d, err := os.MkdirTemp("", "axon-test-bin")
	if err == nil {
		err = BuildInto(d, targets...)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(d)
		os.Exit(1)
	}
	*dir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}
