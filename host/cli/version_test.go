package cli

import (
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// TestMakeStampsTheVersion: `make build` stamps its VERSION and COMMIT into
// the binaries it builds: `axon version` prints both, and a plugin reports
// VERSION as its Info.Version over the real handshake (`axon plugins`
// starts each plugin binary and asks it). Both are built with the
// Makefile's build tags (GOTAGS: grpcnotrace, which leaves grpc's tracing
// and its templates out). The Makefile's own build target is what runs,
// limited to axon and one plugin.
func TestMakeStampsTheVersion(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("make is not installed (%v): this test runs the Makefile's own build, as make test does", err)
	}
	const version, commit = "v9.8.7-3-gabc1234-dirty", "abc1234"
	dir := t.TempDir()
	mk := exec.Command("make", "--no-print-directory", "-C", "../..", "build",
		"BIN="+dir, "PLUGIN_DIRS=plugins/tool-clock", "VERSION="+version, "COMMIT="+commit)
	mk.Env = append(os.Environ(), "CGO_ENABLED=0") // as make build ships them, even under -race
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	for _, bin := range []string{"axon", "axon-tool-clock"} {
		info, err := buildinfo.ReadFile(filepath.Join(dir, bin))
		if err != nil {
			t.Fatal(err)
		}
		var tags string
		for _, s := range info.Settings {
			if s.Key == "-tags" {
				tags = s.Value
			}
		}
		if tags != "grpcnotrace" {
			t.Errorf("%s was built with tags %q, want grpcnotrace (Makefile GOTAGS)", bin, tags)
		}
	}
	axon := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join(dir, "axon"), args...)
		cmd.Env = []string{"HOME=" + t.TempDir()}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("axon %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	wantPrefix := "axon " + version + " (commit " + commit + ", plugin API " + sdk.APIVersion + ","
	if out := axon("version"); !strings.HasPrefix(out, wantPrefix) {
		t.Errorf("axon version printed %q, want it to start with %q", out, wantPrefix)
	}

	out := axon("plugins", "--plugin-dir", dir)
	var got string
	for _, line := range strings.Split(out, "\n") {
		// NAME KIND VERSION PATH SHA256
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "clock" {
			got = f[2]
		}
	}
	if got != version {
		t.Errorf("the clock plugin reports version %q, want %q; axon plugins printed:\n%s", got, version, out)
	}
}
