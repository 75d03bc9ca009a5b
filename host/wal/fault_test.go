package wal

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// faultFile wraps a log file, records the operations that change it, and
// fails writes and syncs on demand. It is installed through open's wrap
// hook, never globally.
type faultFile struct {
	file
	writes, syncs int
	ops           []string // "write", "sync", "truncate", in order

	writeErr error // when set, WriteAt writes partial bytes, then fails
	partial  int   // bytes written by a failing or short WriteAt
	short    bool  // WriteAt writes partial bytes and reports no error
	syncErr  error // when set, Sync fails without syncing
	truncErr error // when set, Truncate fails without truncating
}

func (f *faultFile) WriteAt(b []byte, off int64) (int, error) {
	f.writes++
	f.ops = append(f.ops, "write")
	if f.writeErr == nil && !f.short {
		return f.file.WriteAt(b, off)
	}
	n, err := f.file.WriteAt(b[:min(f.partial, len(b))], off)
	if err != nil {
		return n, err
	}
	return n, f.writeErr
}

func (f *faultFile) Sync() error {
	f.syncs++
	f.ops = append(f.ops, "sync")
	if f.syncErr != nil {
		return f.syncErr
	}
	return f.file.Sync()
}

func (f *faultFile) Truncate(size int64) error {
	f.ops = append(f.ops, "truncate")
	if f.truncErr != nil {
		return f.truncErr
	}
	return f.file.Truncate(size)
}

func openCounting(t *testing.T, path string) (*WAL, *faultFile) {
	t.Helper()
	var ff *faultFile
	w, err := open(path, func(f file) file { ff = &faultFile{file: f}; return ff })
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return w, ff
}

// TestOpenSyncsBeforeReturning checks what Open does to an existing log
// before any record is handed out: a torn tail is cut, then the file is
// synced, so nothing Replay returns can be lost to a crash (a new log was
// synced when it was created).
func TestOpenSyncsBeforeReturning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ref, _ := buildLog(t, filepath.Join(dir, "ref"), []int{1, 2})
	tests := []struct {
		name string
		file []byte
		want []string
	}{
		{"clean log", ref, []string{"sync"}},
		{"torn tail", ref[:len(ref)-5], []string{"truncate", "sync"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, ff := openCounting(t, writeFile(t, t.TempDir(), tt.file))
			defer mustClose(t, w)
			if diff := cmp.Diff(tt.want, ff.ops); diff != "" {
				t.Errorf("file operations during Open (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBatchIsOneWriteAndOneSync(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 8, 100} {
		w, ff := openCounting(t, filepath.Join(t.TempDir(), "wal"))
		ff.ops = nil
		if _, err := w.Append(batchOf(1, n)...); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"write", "sync"}, ff.ops); diff != "" {
			t.Errorf("file operations of an Append of %d records (-want +got):\n%s", n, diff)
		}
		mustClose(t, w)
	}
}

// TestFailedWriteOrSyncIsSticky injects one failure and checks that the WAL
// cuts the failed batch off and then never touches the file again: no
// write, and above all no second fsync.
func TestFailedWriteOrSyncIsSticky(t *testing.T) {
	t.Parallel()
	eio := syscall.EIO
	tests := []struct {
		name  string
		arm   func(*faultFile)
		cause error
		ops   []string // file operations of the failing Append
		// last is the last record after reopening: 2 when the failed batch
		// was cut off, 5 when the cut failed and recovery found it whole.
		last uint64
	}{
		{"write fails midway", func(f *faultFile) { f.writeErr, f.partial = eio, 10 }, eio, []string{"write", "truncate"}, 2},
		{"write fails before any byte", func(f *faultFile) { f.writeErr = syscall.ENOSPC }, syscall.ENOSPC, []string{"write", "truncate"}, 2},
		{"short write without error", func(f *faultFile) { f.short, f.partial = true, 30 }, nil, []string{"write", "truncate"}, 2},
		// The whole batch is in the file (and maybe only in the page
		// cache): it must not survive into the next Open.
		{"fdatasync fails", func(f *faultFile) { f.syncErr = eio }, eio, []string{"write", "sync", "truncate"}, 2},
		{"fdatasync and the cut fail", func(f *faultFile) { f.syncErr, f.truncErr = eio, syscall.EROFS }, syscall.EROFS, []string{"write", "sync", "truncate"}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "wal")
			w, ff := openCounting(t, path)
			if _, err := w.Append(batchOf(1, 2)...); err != nil {
				t.Fatal(err)
			}
			tt.arm(ff)
			ff.ops = nil

			_, err := w.Append(batchOf(3, 3)...)
			if !errors.Is(err, ErrDisabled) || (tt.cause != nil && !errors.Is(err, tt.cause)) {
				t.Fatalf("failing Append = %v, want ErrDisabled wrapping %v", err, tt.cause)
			}
			if diff := cmp.Diff(tt.ops, ff.ops); diff != "" {
				t.Errorf("file operations of the failing Append (-want +got):\n%s", diff)
			}

			// Even with the fault gone, the WAL stays disabled.
			ff.writeErr, ff.short, ff.syncErr, ff.truncErr = nil, false, nil, nil
			ff.ops = nil
			if _, err2 := w.Append(batchOf(3, 1)...); err2 != err {
				t.Errorf("later Append = %v, want the sticky %v", err2, err)
			}
			if err2 := w.Replay(1, func(uint64, []byte) error { return nil }); err2 != err {
				t.Errorf("later Replay = %v, want the sticky %v", err2, err)
			}
			if got := w.LastSeq(); got != 2 {
				t.Errorf("LastSeq = %d, want 2", got)
			}
			if err2 := w.Close(); !errors.Is(err2, ErrDisabled) {
				t.Errorf("Close = %v, want the sticky error", err2)
			}
			if len(ff.ops) != 0 {
				t.Errorf("disabled WAL did %v, want nothing", ff.ops)
			}

			// Close released the lease; the failed batch is gone unless
			// the cut failed (then recovery decides, as after a crash).
			w = mustOpen(t, path)
			defer mustClose(t, w)
			if diff := cmp.Diff(expected(1, tt.last), replayAll(t, w, 0)); diff != "" {
				t.Errorf("records after reopen (-want +got):\n%s", diff)
			}
			if _, err := w.Append(batchOf(tt.last+1, 1)...); err != nil {
				t.Errorf("Append after reopen: %v", err)
			}
		})
	}
}
