package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The terminal tests run their jails in a re-executed copy of this test
// binary, started in a session of its own: with a pseudo-terminal as its
// controlling terminal, or with none.
const terminalChildEnv = "AXON_TEST_TERMINAL_CHILD" // "granted", "refused" or "none"

// TestHostTerminalGrant: devices = ["/dev/tty"] shows the plugin the
// terminal axon runs in, at /dev/tty (where a jailed process, in a session
// of its own, would otherwise find no terminal); a root host's plugin
// writes to it through the terminal's group, so a terminal closed to its
// group (mesg n) is refused with what to do; and a host without a terminal
// cannot grant one.
func TestHostTerminalGrant(t *testing.T) {
	if mode := os.Getenv(terminalChildEnv); mode != "" {
		terminalChild(t, mode)
		return
	}
	t.Parallel()
	m, slave := openTerminal(t)
	if os.Geteuid() == 0 {
		// What login does for a user's terminal; a bare pty here belongs
		// to root's group.
		g, err := user.LookupGroup("tty")
		if err != nil {
			t.Skipf("no tty group: %v", err)
		}
		gid, _ := strconv.Atoi(g.Gid)
		if err := os.Chown(slave.Name(), 0, gid); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(slave.Name(), 0o620); err != nil {
			t.Fatal(err)
		}
	}
	out := runTerminalChild(t, "granted", slave, m)
	if !strings.Contains(out, "hostile") {
		t.Errorf("the plugin's write did not reach the host's terminal:\n%s", out)
	}
	if os.Geteuid() == 0 {
		if err := os.Chmod(slave.Name(), 0o600); err != nil {
			t.Fatal(err)
		}
		runTerminalChild(t, "refused", slave, m)
	}
	runTerminalChild(t, "none", nil, nil)
}

// runTerminalChild runs this test in a new session with tty (nil: none) as
// its controlling terminal, and returns what reached the terminal from it.
func runTerminalChild(t *testing.T, mode string, tty, master *os.File) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^TestHostTerminalGrant$", "-test.v", "-test.count=1")
	cmd.Env = []string{childBinDirEnv + "=" + binDir, terminalChildEnv + "=" + mode, "HOME=/tmp", "TMPDIR=" + os.TempDir()}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if tty != nil {
		cmd.Stdin = tty
		cmd.SysProcAttr.Setctty, cmd.SysProcAttr.Ctty = true, 0
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	werr := cmd.Wait()
	if werr != nil || !strings.Contains(out.String(), "--- PASS: TestHostTerminalGrant") {
		t.Fatalf("child (%s): %v\n%s", mode, werr, out.String())
	}
	if master == nil {
		return ""
	}
	// What the plugin wrote is in the terminal's buffer by now; a marker
	// from this side ends the read.
	fmt.Fprint(tty, "\nend of child\n")
	b, err := readUntil(master, "end of child")
	if err != nil {
		t.Fatalf("read the terminal: %v", err)
	}
	return string(b)
}

func terminalChild(t *testing.T, mode string) {
	j := Jail{Name: "tty", IDs: rootIDs(), Grants: []Grant{{Path: HostTerminal, Mode: Device}}}
	switch mode {
	case "granted":
		if out := probe(t, j, "write", HostTerminal); !strings.HasPrefix(out, "ESCAPED: /dev/tty existed") {
			t.Fatalf("write to the granted terminal: %q", out)
		}
	case "refused", "none":
		want := map[string]string{"refused": "run mesg y in it", "none": "axon has no terminal to show the plugin"}[mode]
		j.Binary, j.SocketDir = binDir+"/hostile", t.TempDir()
		if _, err := j.Command(); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("grant of the host's terminal (%s) = %v, want an error saying %q", mode, err, want)
		}
	}
}

// openTerminal opens a pseudo-terminal and returns its master and its
// terminal side.
func openTerminal(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// readUntil reads r until what it read contains marker.
func readUntil(r io.Reader, marker string) ([]byte, error) {
	var b []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(b, []byte(marker)) {
		n, err := r.Read(buf)
		b = append(b, buf[:n]...)
		if err != nil {
			return b, err
		}
	}
	return b, nil
}
