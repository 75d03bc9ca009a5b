package wal

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLeaseHeldWithoutTheLog(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "wal")
	l, err := Lock(path)
	if err != nil {
		t.Fatalf("Lock: %v", err)
	}
	if _, err := Open(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("Open under a held Lease: %v, want ErrLocked", err)
	}
	if _, err := l.Open(false); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Lease.Open(false) of a missing log: %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Lease.Open(false) created the log: %v", err)
	}
	if _, err := Lock(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("the failed Lease.Open let the lease go: second Lock: %v", err)
	}
	w, err := l.Open(true)
	if err != nil {
		t.Fatalf("Lease.Open(true): %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatalf("Release of a lease handed to a WAL: %v", err)
	}
	if _, err := Lock(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("the WAL does not hold the lease it was handed: %v", err)
	}
	mustClose(t, w)
	l2, err := Lock(path)
	if err != nil {
		t.Fatalf("Lock after Close: %v", err)
	}
	if err := l2.Release(); err != nil {
		t.Fatal(err)
	}
}

func TestImageReadsWhatOpenKeeps(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "wal")
	w := mustOpen(t, path)
	for i := uint64(1); i <= 200; i += 4 {
		if _, err := w.Append(batchOf(i, 4)...); err != nil {
			t.Fatal(err)
		}
	}
	want := replayAll(t, w, 70)
	lineage := w.Lineage()
	mustClose(t, w)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	torn := append(bytes.Clone(b), b[headerSize:headerSize+40]...) // a torn copy of a frame: not whole
	im, err := ReadImage(bytes.NewReader(torn), int64(len(torn)), "copy")
	if err != nil {
		t.Fatalf("ReadImage: %v", err)
	}
	if im.Lineage() != lineage || im.LastSeq() != 200 || im.Report().End != int64(len(b)) || im.Report().Size != int64(len(torn)) {
		t.Errorf("image report %+v, want lineage %s, 200 records, end %d of %d", im.Report(), lineage, len(b), len(torn))
	}
	var got []rec
	if err := im.Replay(70, func(seq uint64, p []byte) error { got = append(got, rec{seq, string(p)}); return nil }); err != nil {
		t.Fatalf("Replay: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("image replay differs from the log's (-log +image):\n%s", diff)
	}
	bad := bytes.Clone(b)
	bad[headerSize+frameHeaderSize] ^= 0xff // first payload damaged, later batches intact
	if _, err := ReadImage(bytes.NewReader(bad), int64(len(bad)), "copy"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("ReadImage of a damaged copy: %v, want ErrCorrupt", err)
	}
}
