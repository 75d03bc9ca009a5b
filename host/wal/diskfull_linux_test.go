//go:build linux

package wal

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// smallDisk mounts a tmpfs of size bytes on a new directory for the test
// and unmounts it at the end. Only root may mount; otherwise the test is
// skipped, saying why.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs to fill needs root; run as root to test a full disk")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs on %s (no CAP_SYS_ADMIN in this namespace?): %v", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// freeBlocks is how many blocks of the file system at dir are free, and
// their size.
func freeBlocks(t *testing.T, dir string) (n, size int64) {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bfree), st.Bsize
}

// fill writes a file at path that leaves exactly keep blocks free.
func fill(t *testing.T, dir, name string, keep int64) {
	t.Helper()
	n, bs := freeBlocks(t, dir)
	if n < keep {
		t.Fatalf("%d blocks free, cannot leave %d", n, keep)
	}
	if err := os.WriteFile(filepath.Join(dir, name), make([]byte, (n-keep)*bs), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := freeBlocks(t, dir); got != keep {
		t.Fatalf("%d blocks free after filling, want %d", got, keep)
	}
}

// TestFullDisk appends on a file system that has no room for the batch:
// the Append fails with ENOSPC, the WAL is disabled, the bytes the partial
// write took are given back, and once the disk has room a reopened log
// holds exactly the acknowledged records and takes the batch.
func TestFullDisk(t *testing.T) {
	t.Parallel()
	dir := smallDisk(t, "64k")
	path := filepath.Join(dir, "wal")
	w := mustOpen(t, path)
	if _, err := w.Append(batchOf(1, 2)...); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// One block free; the batch needs at least two more: its write fills
	// the free block and then fails.
	fill(t, dir, "filler", 1)
	_, bs := freeBlocks(t, dir)
	big := make([][]byte, 3)
	for i := range big {
		big[i] = make([]byte, bs)
		copy(big[i], payload(uint64(3+i)))
	}

	_, err = w.Append(big...)
	if !errors.Is(err, ErrDisabled) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Append on a full disk = %v, want ErrDisabled wrapping ENOSPC", err)
	}
	if st2, _ := os.Stat(path); st2.Size() != st.Size() {
		t.Errorf("log is %d bytes after the failed Append, want %d (the failed batch cut off)", st2.Size(), st.Size())
	}
	if n, _ := freeBlocks(t, dir); n != 1 {
		t.Errorf("%d blocks free after the failed Append, want the 1 it took back", n)
	}
	if _, err2 := w.Append(batchOf(3, 1)...); err2 != err {
		t.Errorf("Append after the failure = %v, want the sticky %v", err2, err)
	}
	if err := w.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Close = %v, want the sticky error", err)
	}

	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	w = mustOpen(t, path)
	defer mustClose(t, w)
	if diff := cmp.Diff(expected(1, 2), replayAll(t, w, 0)); diff != "" {
		t.Fatalf("records after reopen (-want +got):\n%s", diff)
	}
	if first, err := w.Append(big...); err != nil || first != 3 {
		t.Fatalf("Append with room again = %d, %v; want 3, nil", first, err)
	}
}

// TestErrorsNameTheLog checks that a failure on a newly created log names
// the log, not the temporary file it was created under.
func TestErrorsNameTheLog(t *testing.T) {
	t.Parallel()
	dir := smallDisk(t, "64k")
	path := filepath.Join(dir, "wal")
	w := mustOpen(t, path)
	fill(t, dir, "filler", 0)
	_, bs := freeBlocks(t, dir)
	_, err := w.Append(make([]byte, bs))
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Path != path {
		t.Errorf("Append on a full disk = %v, want an error on %s", err, path)
	}
	w.Close()
}
