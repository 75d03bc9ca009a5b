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
// never touches the file again: no write, and above all no second fsync.
func TestFailedWriteOrSyncIsSticky(t *testing.T) {
	t.Parallel()
	eio := syscall.EIO
	tests := []struct {
		name   string
		arm    func(*faultFile)
		cause  error
		writes int // writes and syncs of the failing Append
		syncs  int
		// After reopening: whether the failed batch is there. A failed
		// Append's outcome is unknown to the caller; these cases pin it.
		batchSurvives bool
	}{
		{"write fails midway", func(f *faultFile) { f.writeErr, f.partial = eio, 10 }, eio, 1, 0, false},
		{"write fails before any byte", func(f *faultFile) { f.writeErr = syscall.ENOSPC }, syscall.ENOSPC, 1, 0, false},
		{"short write without error", func(f *faultFile) { f.short, f.partial = true, 30 }, nil, 1, 0, false},
		{"fdatasync fails", func(f *faultFile) { f.syncErr = eio }, eio, 1, 1, true},
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
			writes, syncs := ff.writes, ff.syncs

			_, err := w.Append(batchOf(3, 3)...)
			if !errors.Is(err, ErrDisabled) || (tt.cause != nil && !errors.Is(err, tt.cause)) {
				t.Fatalf("failing Append = %v, want ErrDisabled wrapping %v", err, tt.cause)
			}
			if got := [2]int{ff.writes - writes, ff.syncs - syncs}; got != [2]int{tt.writes, tt.syncs} {
				t.Errorf("failing Append made %d writes and %d syncs, want %d and %d", got[0], got[1], tt.writes, tt.syncs)
			}

			// Even with the fault gone, the WAL stays disabled.
			ff.writeErr, ff.short, ff.syncErr = nil, false, nil
			writes, syncs = ff.writes, ff.syncs
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
			if ff.writes != writes || ff.syncs != syncs {
				t.Errorf("disabled WAL made %d more writes and %d more syncs, want none", ff.writes-writes, ff.syncs-syncs)
			}

			// Close released the lease; recovery decides what the failed
			// batch left behind.
			w = mustOpen(t, path)
			defer mustClose(t, w)
			want := expected(1, 2)
			if tt.batchSurvives {
				want = expected(1, 5)
			}
			if diff := cmp.Diff(want, replayAll(t, w, 0)); diff != "" {
				t.Errorf("records after reopen (-want +got):\n%s", diff)
			}
		})
	}
}
