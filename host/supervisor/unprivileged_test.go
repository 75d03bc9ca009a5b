package supervisor

import (
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/sdk/spec"
)

// childBinDirEnv tells a re-executed test binary where the plugins are.
const childBinDirEnv = "AXON_TEST_UNPRIVILEGED_BINDIR"

// TestUnprivilegedSandbox re-runs this test binary as nobody (uid 65534),
// so the supervisor takes its unprivileged path: CLONE_NEWUSER with an
// identity map, plus CLONE_NEWNET. See TestUnprivilegedChild.
func TestUnprivilegedSandbox(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a child as an unprivileged user")
	}
	// The go test build directory is private to root: copy the test
	// binary next to the plugins, where nobody may run it.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(binDir, "supervisor.test")
	if err := copyFile(self, exe); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestUnprivilegedChild$", "-test.v", "-test.count=1")
	cmd.Env = []string{childBinDirEnv + "=" + binDir, "HOME=/tmp", "TMPDIR=/tmp"}
	cmd.Dir = "/tmp"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestUnprivilegedChild") {
		t.Fatalf("child as nobody: %v\n%s", err, out)
	}
	t.Logf("child:\n%s", out)
}

// TestUnprivilegedChild runs as nobody. Either the kernel grants user
// namespaces, and the plugin runs with no network, or it does not, and the
// start fails with an error that says why and names sandbox = "none" —
// never a plugin started without its sandbox.
func TestUnprivilegedChild(t *testing.T) {
	if os.Getenv(childBinDirEnv) == "" {
		t.Skip("helper: runs only inside the unprivileged child that TestUnprivilegedSandbox starts")
	}
	if os.Geteuid() == 0 {
		t.Fatal("the child still runs as root")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	s := newSupervisor(t, &logbuf.Buffer{}, Options{})
	s.Add(Spec{Name: "jailed", Kind: spec.KindProvider, Path: bin("hostile")})
	in, _ := s.Instance("jailed")
	_, out, err := collect(context.Background(), in, "dial "+l.Addr().String())
	if err != nil {
		if !strings.Contains(err.Error(), `sandbox = "none"`) {
			t.Fatalf("sandbox refused with an unclear error: %v", err)
		}
		if in.Pid() != 0 {
			t.Fatal("a plugin runs although its sandbox failed")
		}
		t.Logf("user namespaces are not available to nobody here; the start failed as it must: %v", err)
		return
	}
	if !strings.HasPrefix(out, "dial error:") {
		t.Fatalf("an unprivileged host's plugin reached 127.0.0.1: %q", out)
	}
	t.Logf("unprivileged sandbox works: %s", out)
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
