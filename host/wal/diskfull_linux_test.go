//go:build linux

package wal

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/host/internal/smalldisk"
)

// TestFullDisk appends on a file system that has no room for the batch:
// the Append fails with ENOSPC, the WAL is disabled, the bytes the partial
// write took are given back, and once the disk has room a reopened log
// holds exactly the acknowledged records and takes the batch.
func TestFullDisk(t *testing.T) {
	t.Parallel()
	dir := smalldisk.Mount(t, "64k")
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
	smalldisk.Fill(t, dir, "filler", 1)
	_, bs := smalldisk.Free(t, dir)
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
	if n, _ := smalldisk.Free(t, dir); n != 1 {
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
	dir := smalldisk.Mount(t, "64k")
	path := filepath.Join(dir, "wal")
	w := mustOpen(t, path)
	smalldisk.Fill(t, dir, "filler", 0)
	_, bs := smalldisk.Free(t, dir)
	_, err := w.Append(make([]byte, bs))
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Path != path {
		t.Errorf("Append on a full disk = %v, want an error on %s", err, path)
	}
	w.Close()
}
