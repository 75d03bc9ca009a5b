package wal

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// scratchDir is a directory for tests that open thousands of logs. It is on
// tmpfs when the machine has /dev/shm, where fsync costs nothing, so the
// byte-by-byte recovery tests measure recovery logic rather than the disk.
func scratchDir(t testing.TB) string {
	t.Helper()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "axon-wal-test-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// payload is the deterministic content of record seq in generated logs, of
// varying length (empty for every 97th record).
func payload(seq uint64) []byte {
	var b bytes.Buffer
	if seq%97 == 0 {
		return []byte{}
	}
	fmt.Fprintf(&b, `{"seq":%d,"pad":"`, seq)
	for i := range seq * 37 % 91 {
		b.WriteByte('a' + byte(i%26))
	}
	b.WriteString(`"}`)
	return b.Bytes()
}

// batchOf returns the payloads of seqs first..first+n-1.
func batchOf(first uint64, n int) [][]byte {
	recs := make([][]byte, n)
	for i := range recs {
		recs[i] = payload(first + uint64(i))
	}
	return recs
}

// rec is one replayed record, comparable with go-cmp.
type rec struct {
	Seq     uint64
	Payload string
}

func expected(from, to uint64) []rec {
	var out []rec
	for s := from; s <= to; s++ {
		out = append(out, rec{s, string(payload(s))})
	}
	return out
}

func replayAll(t testing.TB, w *WAL, from uint64) []rec {
	t.Helper()
	var out []rec
	if err := w.Replay(from, func(seq uint64, p []byte) error {
		out = append(out, rec{seq, string(p)})
		return nil
	}); err != nil {
		t.Fatalf("Replay(%d): %v", from, err)
	}
	return out
}

func mustOpen(t testing.TB, path string) *WAL {
	t.Helper()
	w, err := Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return w
}

func mustClose(t testing.TB, w *WAL) {
	t.Helper()
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// boundary is the state of a log after an Append returned.
type boundary struct {
	end  int64  // file size
	last uint64 // last seq
}

// buildLog creates a log at path from batches of the given sizes, using
// payload(seq) records, and returns its bytes and the boundary after the
// header and after each batch.
func buildLog(t testing.TB, path string, sizes []int) ([]byte, []boundary) {
	t.Helper()
	w := mustOpen(t, path)
	bounds := []boundary{{end: headerSize}}
	for _, n := range sizes {
		first, err := w.Append(batchOf(w.LastSeq()+1, n)...)
		if err != nil {
			t.Fatalf("Append: %v", err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		bounds = append(bounds, boundary{end: st.Size(), last: first + uint64(n) - 1})
	}
	mustClose(t, w)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b, bounds
}

// lastBoundaryWithin is the last boundary at or before offset cut.
func lastBoundaryWithin(bounds []boundary, cut int64) boundary {
	var b boundary
	for _, x := range bounds {
		if x.end <= cut {
			b = x
		}
	}
	return b
}

func writeFile(t testing.TB, dir string, b []byte) string {
	t.Helper()
	path := filepath.Join(dir, "wal")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}
