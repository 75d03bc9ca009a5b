package main

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// hangGuard bounds every wait for a terminal's output; it is no claim.
const hangGuard = 60 * time.Second

// openPTY opens a pseudo-terminal of rows×cols and returns its master and
// the path of its terminal side (/dev/pts/N).
func openPTY(t *testing.T, rows, cols int) (*os.File, string) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pty: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	resizePTY(t, m, rows, cols)
	return m, fmt.Sprintf("/dev/pts/%d", n)
}

func resizePTY(t *testing.T, m *os.File, rows, cols int) {
	t.Helper()
	if err := unix.IoctlSetWinsize(int(m.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)}); err != nil {
		t.Fatalf("set the pty's size: %v", err)
	}
}

// transcript is everything written to a terminal, read from its master
// as it comes (a terminal blocks writers whose output nobody reads).
type transcript struct {
	mu      sync.Mutex
	b       strings.Builder
	done    bool
	changed chan struct{}
}

func record(m *os.File) *transcript {
	tr := &transcript{changed: make(chan struct{}, 1)}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := m.Read(buf)
			tr.mu.Lock()
			tr.b.Write(buf[:n])
			if err != nil {
				tr.done = true // EIO: every terminal side is closed
			}
			tr.mu.Unlock()
			select {
			case tr.changed <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return tr
}

// text is what the terminal received so far: what was written, but for
// the CR LF the line discipline makes of each LF.
func (tr *transcript) text() (string, bool) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.b.String(), tr.done
}

// lf turns a terminal's CR LF back into the LF that was written.
func lf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// waitFor returns the transcript once ok accepts it.
func (tr *transcript) waitFor(t *testing.T, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.After(hangGuard)
	for {
		s, done := tr.text()
		if ok(s) {
			return s
		}
		if done {
			t.Fatalf("the terminal closed before %s; it received:\n%q", what, s)
		}
		select {
		case <-tr.changed:
		case <-deadline:
			t.Fatalf("no %s within %v; the terminal received:\n%q", what, hangGuard, s)
		}
	}
}

// all returns the whole transcript once every writer has closed the
// terminal.
func (tr *transcript) all(t *testing.T) string {
	t.Helper()
	return tr.waitFor(t, "end of output", func(string) bool {
		_, done := tr.text()
		return done
	})
}
