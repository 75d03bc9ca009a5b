package cli

import (
	"os"
	"strings"
	"testing"
)

// TestLockWithTheBuiltInConfig: on a fresh machine the built-in
// configuration's state directory does not exist yet; `axon plugins lock`
// creates it and writes the lock there.
func TestLockWithTheBuiltInConfig(t *testing.T) {
	t.Parallel()
	code, out, errOut := run(t, nil, "plugins", "lock")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	path, ok := strings.CutPrefix(strings.TrimSpace(out), "wrote ")
	if !ok {
		t.Fatalf("output %q does not name the lock file", out)
	}
	path, _, _ = strings.Cut(path, " (")
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), "sha256") {
		t.Fatalf("lock file %s: %v\n%s", path, err, b)
	}
}
