package session

import (
	"errors"
	"fmt"

	"github.com/axonhq/axon/host/wal"
)

var (
	// ErrInvalid matches a refused admission or request: a bad field. The
	// error is an *InvalidError naming it. Nothing was written.
	ErrInvalid = errors.New("invalid request")
	// ErrNotFound: no such session or run.
	ErrNotFound = errors.New("not found")
	// ErrBusy: the session has a run in progress; a session runs one at a
	// time. The error is a *BusyError naming it. Nothing was written.
	ErrBusy = errors.New("session has a run in progress")
	// ErrPaused: the session's last run is paused; resume or cancel it
	// before sending another prompt. The error is a *BusyError.
	ErrPaused = errors.New("session's last run is paused")
	// ErrKeyReused: the idempotency key names an earlier run of this
	// session with a different prompt.
	ErrKeyReused = errors.New("idempotency key already used with another prompt")
	// ErrNoOpenRun: cancel or resume found no run in a state to allow it.
	ErrNoOpenRun = errors.New("no run to act on")
	// ErrUnavailable: something admission needs (a tool plugin) could not
	// be reached. Nothing was written.
	ErrUnavailable = errors.New("unavailable")
	// ErrShuttingDown: the host stopped admitting work (SIGTERM).
	ErrShuttingDown = errors.New("shutting down")
	// ErrLogFailed: a write or fdatasync of the session's log failed (a
	// full disk, a read-only state directory). The error is a *LogError;
	// Health reports a *HealthError matching it too.
	ErrLogFailed = errors.New("session log failed")
	// ErrLocked: another writer (usually another axon process) holds the
	// session's WAL. It is wal.ErrLocked.
	ErrLocked = wal.ErrLocked
)

// InvalidError names the field a request got wrong.
type InvalidError struct {
	Field  string
	Reason string
}

func (e *InvalidError) Error() string { return fmt.Sprintf("invalid %s: %s", e.Field, e.Reason) }

// Is makes errors.Is(err, ErrInvalid) hold.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

func invalidf(field, format string, args ...any) error {
	return &InvalidError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// BusyError names the run that keeps a new prompt out: one in progress
// (ErrBusy) or one paused (ErrPaused).
type BusyError struct {
	RunID  string
	Status Status
}

func (e *BusyError) Error() string {
	if e.Status == StatusPaused {
		return fmt.Sprintf("run %s is paused: resume or cancel it first", e.RunID)
	}
	return fmt.Sprintf("run %s is in progress", e.RunID)
}

// Is matches ErrPaused for a paused run and ErrBusy otherwise.
func (e *BusyError) Is(target error) bool {
	if e.Status == StatusPaused {
		return target == ErrPaused
	}
	return target == ErrBusy
}
