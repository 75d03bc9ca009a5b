//go:build linux

// Package smalldisk gives tests a real file system that fills up: a tmpfs
// of a few kilobytes, mounted for one test and unmounted after it. It is
// for tests only, and needs root (it skips, saying why, without it).
package smalldisk

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size (e.g. "64k") on a new directory for the
// test and unmounts it at the end.
func Mount(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs to fill needs root; run as root to test a full disk")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs on %s (no CAP_SYS_ADMIN in this namespace?): %v", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// Free is how many blocks of the file system at dir are free, and their size.
func Free(t *testing.T, dir string) (blocks uint64, size int64) {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return st.Bfree, st.Bsize
}

// Fill writes the file name in dir so that exactly keep blocks of its file
// system stay free.
func Fill(t *testing.T, dir, name string, keep uint64) {
	t.Helper()
	n, bs := Free(t, dir)
	if n < keep {
		t.Fatalf("%d blocks free, cannot leave %d", n, keep)
	}
	if err := os.WriteFile(filepath.Join(dir, name), make([]byte, int64(n-keep)*bs), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := Free(t, dir); got != keep {
		t.Fatalf("%d blocks free after filling, want %d", got, keep)
	}
}
