package wal

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// keepBuf is the largest encode buffer kept between Appends; a bigger one,
// grown for a large batch, is dropped.
const keepBuf = 1 << 20

// WAL is an open session log holding the writer lease. Its methods are safe
// for concurrent use; Appends are serialised.
type WAL struct {
	path      string
	lineage   LineageID
	seed      uint32
	lease     *lease
	truncated int64

	mu     sync.Mutex
	f      file
	end    int64   // file size: end of the last durable batch
	last   uint64  // seq of the last durable record
	marks  []int64 // see committed.marks; appended to, never rewritten
	buf    []byte
	err    error // sticky: set by a failed write or fsync
	closed bool
}

// Open opens the log at path for writing, creating it when it does not
// exist; its directory must exist. It takes the writer lease, recovers the
// log as the package comment describes (truncating a torn tail, refusing a
// corrupt log with ErrCorrupt) and makes its content durable before
// returning.
func Open(path string) (*WAL, error) { return open(path, nil) }

// open is Open with a hook that wraps the log file, for tests.
func open(path string, wrap func(file) file) (*WAL, error) {
	ls, err := acquireLease(path + ".lock")
	if err != nil {
		return nil, err
	}
	w, err := openLeased(path, ls, wrap, true)
	if err != nil {
		return nil, errors.Join(err, ls.release())
	}
	return w, nil
}

// openLeased opens the log at path under ls, which the WAL owns on success
// (Close releases it) and the caller keeps on failure. A missing log is
// created only with mayCreate; otherwise it is an error matching
// fs.ErrNotExist.
func openLeased(path string, ls *lease, wrap func(file) file, mayCreate bool) (_ *WAL, err error) {
	osf, err := os.OpenFile(path, os.O_RDWR, 0)
	created := false
	if errors.Is(err, fs.ErrNotExist) && mayCreate {
		osf, err = create(path)
		created = true
	}
	if err != nil {
		return nil, fmt.Errorf("wal: open %s: %w", path, err)
	}
	var f file = osFile{osf}
	if wrap != nil {
		f = wrap(f)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, f.Close())
		}
	}()
	st, err := osf.Stat()
	if err != nil {
		return nil, fmt.Errorf("wal: stat %s: %w", path, err)
	}
	l, rec, err := inspect(f, st.Size(), path)
	if err != nil {
		return nil, err
	}
	w := &WAL{
		path: path, lineage: l, seed: l.seed(), lease: ls, truncated: rec.size - rec.end,
		f: f, end: rec.end, last: rec.last, marks: rec.marks,
	}
	if created {
		return w, nil
	}
	if w.truncated > 0 {
		if err := f.Truncate(rec.end); err != nil {
			return nil, fmt.Errorf("wal: truncate torn tail of %s at %d: %w", path, rec.end, err)
		}
	}
	// A previous writer may have died between its write and its fsync, and
	// the truncation above is not durable yet: sync before anything read
	// here is treated as durable. The directory sync covers a creator that
	// died between its rename and its directory sync.
	if err := f.Sync(); err != nil {
		return nil, fmt.Errorf("wal: sync %s: %w", path, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	return w, nil
}

// Lineage is the random identity of this incarnation of the log.
func (w *WAL) Lineage() LineageID { return w.lineage }

// Truncated is the number of bytes of torn tail Open cut off.
func (w *WAL) Truncated() int64 { return w.truncated }

// LastSeq is the sequence number of the last durable record, 0 when the log
// is empty.
func (w *WAL) LastSeq() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

// Append writes records as one batch in one write followed by one
// fdatasync and returns the sequence number of the first; the others follow
// densely. The records are durable when it returns nil. Any write or sync
// error disables the WAL (see ErrDisabled) and cuts the failed batch off the
// file; ErrTooLarge and ErrEmptyBatch leave it usable.
func (w *WAL) Append(records ...[]byte) (uint64, error) {
	if len(records) == 0 {
		return 0, ErrEmptyBatch
	}
	encoded := 0
	for i, r := range records {
		if len(r) > MaxRecordSize {
			return 0, fmt.Errorf("%w: record %d is %d bytes, limit %d", ErrTooLarge, i, len(r), MaxRecordSize)
		}
		encoded += frameHeaderSize + len(r)
	}
	if encoded > MaxBatchSize {
		return 0, fmt.Errorf("%w: batch encodes to %d bytes, limit %d", ErrTooLarge, encoded, MaxBatchSize)
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return 0, err
	}
	first := w.last + 1
	buf := w.buf[:0]
	var marks []int64
	for i, r := range records {
		seq := first + uint64(i)
		if (seq-1)%markEvery == 0 {
			marks = append(marks, w.end+int64(len(buf)))
		}
		buf = appendFrame(buf, w.seed, frameHeader{seq: seq, index: uint32(i), count: uint32(len(records))}, r)
	}
	if n, err := w.f.WriteAt(buf, w.end); err != nil || n != len(buf) {
		if err == nil {
			err = io.ErrShortWrite
		}
		return 0, w.disable("write", err)
	}
	if err := w.f.Sync(); err != nil {
		return 0, w.disable("fdatasync", err)
	}
	w.end += int64(len(buf))
	w.last += uint64(len(records))
	w.marks = append(w.marks, marks...)
	if cap(buf) <= keepBuf {
		w.buf = buf
	} else {
		w.buf = nil
	}
	return first, nil
}

// Replay calls fn with every durable record whose sequence number is at
// least from (0 and 1 both mean from the start), in order, up to the last record durable when Replay was
// called. fn may keep payload. Replay stops at fn's first error and returns
// it unchanged. Records are checked again as they are read; damage that
// appeared since Open is reported as a *CorruptError. fn may call Append.
func (w *WAL) Replay(from uint64, fn func(seq uint64, payload []byte) error) error {
	w.mu.Lock()
	if err := w.usable(); err != nil {
		w.mu.Unlock()
		return err
	}
	f, end, last, marks := w.f, w.end, w.last, w.marks
	w.mu.Unlock()
	return replayFrames(f, w.path, w.seed, end, last, marks, from, fn)
}

// Close releases the file and the writer lease. On a disabled WAL it still
// releases them and returns the sticky error.
func (w *WAL) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	w.closed = true
	return errors.Join(w.err, w.f.Close(), w.lease.release())
}

// disable makes the failure of op sticky and cuts the file back to the end
// of the last durable batch, once and without a sync. The failed batch was
// never acknowledged, so dropping it is one of its allowed outcomes, and the
// right one: after a failed fdatasync its bytes may sit in the page cache
// without being on disk, and an Open in this process would read them as
// written; after a short write they hold space a full disk needs back.
// w.mu must be held.
func (w *WAL) disable(op string, err error) error {
	w.err = disabled(w.path, op, w.end, err)
	if terr := w.f.Truncate(w.end); terr != nil {
		w.err = fmt.Errorf("%w; cutting the failed batch off: %w", w.err, terr)
	}
	return w.err
}

// usable reports why the WAL may not be used; w.mu must be held.
func (w *WAL) usable() error {
	if w.closed {
		return ErrClosed
	}
	return w.err
}
