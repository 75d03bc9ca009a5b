package wal

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestSecondOpenInProcessIsLocked(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "wal")
	w := mustOpen(t, path)
	_, err := Open(path)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open = %v, want ErrLocked", err)
	}
	if want := "pid " + strconv.Itoa(os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Errorf("ErrLocked message %q does not name the holder (%s)", err, want)
	}
	mustClose(t, w)
	mustClose(t, mustOpen(t, path))
}

// TestLeaseAcrossProcesses holds the lease in one process and opens from
// another, both ways, and checks the lease dies with a SIGKILLed holder.
func TestLeaseAcrossProcesses(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "wal")

	tryOpen := func() string {
		t.Helper()
		out, err := helperCommand("try-open", path, 0).Output()
		if err != nil {
			t.Fatalf("helper: %v: %s", err, errOutput(err))
		}
		return strings.TrimSpace(string(out))
	}

	w := mustOpen(t, path)
	if got := tryOpen(); got != "locked" {
		t.Errorf("other process while this one holds the log: %q, want locked", got)
	}
	mustClose(t, w)
	if got := tryOpen(); got != "opened" {
		t.Errorf("other process after Close: %q, want opened", got)
	}

	hold := helperCommand("hold", path, 0)
	stdin, err := hold.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := hold.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := hold.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		hold.Process.Kill()
		hold.Wait()
		t.Fatalf("holder said %q, %v; want ready", line, err)
	}
	if _, err := Open(path); !errors.Is(err, ErrLocked) {
		t.Errorf("Open while another process holds the log = %v, want ErrLocked", err)
	}
	if err := hold.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := hold.Wait(); err == nil {
		t.Fatal("holder exited cleanly, want killed")
	}
	mustClose(t, mustOpen(t, path)) // the kernel released the dead holder's lease
}

func errOutput(err error) string {
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		return string(ee.Stderr)
	}
	return ""
}
