//go:build unix

package wal

import (
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCloseReleasesLeaseHeldByForkedCopy duplicates the lock descriptor as
// a child forked by another goroutine would hold it until its exec, then
// checks that Close still releases the lease at once.
func TestCloseReleasesLeaseHeldByForkedCopy(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "wal")
	w := mustOpen(t, path)
	rc, err := w.lease.f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	dup := -1
	if err := rc.Control(func(fd uintptr) { dup, err = unix.Dup(int(fd)) }); err != nil || dup < 0 {
		t.Fatalf("dup lock descriptor: %v", err)
	}
	defer unix.Close(dup)
	mustClose(t, w)
	mustClose(t, mustOpen(t, path))
}
