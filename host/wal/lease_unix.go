//go:build unix

package wal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// lease is the writer lease of one log: an exclusive flock on a sibling lock
// file. flock belongs to the open file description, so two Opens in one
// process conflict just as two processes do; Go opens files O_CLOEXEC, so
// child processes (tools, plugins) never inherit it. Closing the file, or the
// death of the process, releases it.
type lease struct{ f *os.File }

func acquireLease(path string) (*lease, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("wal: open lock file: %w", err)
	}
	lerr := flock(f, unix.LOCK_EX|unix.LOCK_NB)
	switch {
	case errors.Is(lerr, unix.EWOULDBLOCK):
		holder := holderOf(f)
		return nil, errors.Join(fmt.Errorf("%w: %s%s", ErrLocked, path, holder), f.Close())
	case lerr != nil:
		return nil, errors.Join(fmt.Errorf("wal: lock %s: %w", path, lerr), f.Close())
	}
	// The pid only helps an operator read an ErrLocked message; the lease is
	// the flock, so a failure to record it is not an error.
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt(strconv.AppendInt(nil, int64(os.Getpid()), 10), 0)
	}
	return &lease{f: f}, nil
}

// holderOf renders the pid the current holder recorded, for ErrLocked.
func holderOf(f *os.File) string {
	b := make([]byte, 20)
	n, _ := f.ReadAt(b, 0)
	pid := bytes.TrimSpace(b[:n])
	if _, err := strconv.Atoi(string(pid)); err != nil {
		return ""
	}
	return " (held by pid " + string(pid) + ")"
}

// release drops the lease. It unlocks explicitly before closing: a child
// forked by another goroutine holds a copy of the descriptor until it
// execs, and a plain close would leave the lock held until then, failing a
// prompt reopen with ErrLocked. The lock file stays: removing it would let a
// new writer lock a fresh inode while an old holder still held the unlinked
// one.
func (l *lease) release() error {
	return errors.Join(flock(l.f, unix.LOCK_UN), l.f.Close())
}

// flock applies how to f, repeating the call when a signal interrupts it.
func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			ferr = unix.Flock(int(fd), how)
			if !errors.Is(ferr, unix.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	return ferr
}
