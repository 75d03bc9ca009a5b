package wal

import (
	"errors"
	"fmt"
)

var (
	// ErrCorrupt matches a log that recovery may not repair: a damaged
	// header, or damaged frames followed by a later batch (see the package
	// comment). The file is left untouched. errors.As with *CorruptError
	// gives the offset.
	ErrCorrupt = errors.New("wal: corrupt log")

	// ErrVersion is returned for a log whose intact header names a format
	// version this package does not read.
	ErrVersion = errors.New("wal: unsupported format version")

	// ErrLocked is returned by Open while another writer holds the log.
	ErrLocked = errors.New("wal: log is locked by another writer")

	// ErrDisabled matches the sticky error of a WAL whose write or fsync
	// failed. The same error value also wraps the I/O error.
	ErrDisabled = errors.New("wal: disabled after a failed write or fsync")

	// ErrClosed is returned by calls on a closed WAL.
	ErrClosed = errors.New("wal: closed")

	// ErrTooLarge is returned by Append for a record over MaxRecordSize or a
	// batch over MaxBatchSize. Nothing is written and the WAL stays usable.
	ErrTooLarge = errors.New("wal: record or batch too large")

	// ErrEmptyBatch is returned by Append called without records.
	ErrEmptyBatch = errors.New("wal: Append needs at least one record")
)

// CorruptError says where and why a log is corrupt. It matches ErrCorrupt.
type CorruptError struct {
	Path   string
	Offset int64 // first damaged byte: the start of the damaged frame or batch
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("wal: %s is corrupt at offset %d: %s", e.Path, e.Offset, e.Reason)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// disabled builds the sticky error of a failed write or fsync.
func disabled(path, op string, off int64, err error) error {
	return fmt.Errorf("%w: %s %s at offset %d: %w", ErrDisabled, op, path, off, err)
}
