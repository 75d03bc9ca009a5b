package wal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// file is the I/O the WAL does on its log. Sync must be a data sync at
// least as strong as fdatasync. Tests wrap the real file to count calls and
// inject failures.
type file interface {
	io.ReaderAt
	io.WriterAt
	Truncate(size int64) error
	Sync() error
	Close() error
}

// osFile is a log file on disk; its Sync is datasync.
type osFile struct{ *os.File }

var _ file = osFile{}

func (f osFile) Sync() error { return datasync(f.File) }

// create makes a new log at path holding only a header with a fresh lineage:
// written under path+".tmp", synced, renamed into place, then the directory
// synced, so a crash leaves either no log or a whole header. It returns the
// log opened again under path, so that its I/O errors name the log and not
// the temporary file, positioned nowhere (all I/O is positional).
func create(path string) (_ *os.File, err error) {
	l, err := newLineage()
	if err != nil {
		return nil, err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("wal: create %s: %w", tmp, err)
	}
	renamed := false
	defer func() {
		switch {
		case err == nil:
		case renamed: // the log exists; the next Open syncs its directory
			err = errors.Join(err, f.Close())
		default:
			err = errors.Join(err, f.Close(), os.Remove(tmp))
		}
	}()
	if _, err := f.WriteAt(encodeHeader(l), 0); err != nil {
		return nil, fmt.Errorf("wal: write header of %s: %w", tmp, err)
	}
	if err := datasync(f); err != nil {
		return nil, fmt.Errorf("wal: sync %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("wal: rename %s: %w", tmp, err)
	}
	renamed = true
	if err := syncDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	lf, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("wal: open %s: %w", path, err)
	}
	_ = f.Close() // synced above; the log is used through lf from here
	return lf, nil
}

// syncDir makes the directory entries of dir durable: a created or renamed
// file is not durable until its directory is synced.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("wal: open directory %s: %w", dir, err)
	}
	serr := d.Sync()
	cerr := d.Close()
	if serr != nil {
		return fmt.Errorf("wal: sync directory %s: %w", dir, serr)
	}
	if cerr != nil {
		return fmt.Errorf("wal: close directory %s: %w", dir, cerr)
	}
	return nil
}
