package session

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// maxSealRetry caps the wait between two attempts to seal a run whose log
// failed.
const maxSealRetry = time.Minute

// LogError is the error of a session whose log failed: a write or fdatasync
// of its WAL returned an error (a full disk, a read-only state directory).
// The run it was writing ends interrupted, with Err in its RunFinished, as
// soon as the log can be written again; until then the session refuses work
// with this error. It matches ErrLogFailed and unwraps to Err and Seal.
type LogError struct {
	SessionID string
	RunID     string
	Err       error // the failed write or fsync (it matches wal.ErrDisabled)
	Seal      error // why the last attempt to write the interrupted end failed; nil before one
}

func (e *LogError) Error() string {
	msg := fmt.Sprintf("session %s: its log failed, so run %s ends interrupted once the log can be written: %v", e.SessionID, e.RunID, e.Err)
	if e.Seal != nil {
		msg += fmt.Sprintf("; the end is not written yet: %v", e.Seal)
	}
	return msg
}

// Is makes errors.Is(err, ErrLogFailed) hold.
func (e *LogError) Is(target error) bool { return target == ErrLogFailed }

func (e *LogError) Unwrap() []error {
	if e.Seal == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Seal}
}

// LogFailure is one entry of the health report: a session whose log failed
// and whose run is not sealed yet.
type LogFailure struct {
	SessionID string    `json:"session_id"`
	RunID     string    `json:"run_id"`
	Error     string    `json:"error"`
	Since     time.Time `json:"since"`
	// SealAttempts counts the attempts to write the run's interrupted end;
	// SealError is why the last one failed.
	SealAttempts int    `json:"seal_attempts"`
	SealError    string `json:"seal_error,omitempty"`
}

// HealthError is what Health reports while session logs are failing. It
// matches ErrLogFailed.
type HealthError struct {
	Failures []LogFailure // oldest first
}

func (e *HealthError) Error() string {
	parts := make([]string, len(e.Failures))
	for i, f := range e.Failures {
		parts[i] = fmt.Sprintf("session %s (run %s, since %s): %s", f.SessionID, f.RunID, f.Since.Format(time.RFC3339), f.Error)
		if f.SealError != "" {
			parts[i] += fmt.Sprintf("; %d attempts to seal the run failed, the last: %s", f.SealAttempts, f.SealError)
		}
	}
	return fmt.Sprintf("session logs failing: %s", strings.Join(parts, "; "))
}

// Is makes errors.Is(err, ErrLogFailed) hold.
func (e *HealthError) Is(target error) bool { return target == ErrLogFailed }

// Health reports whether every session log this host writes is writable:
// nil, or a *HealthError naming each session whose log failed and whose run
// is not sealed yet. A failure leaves the report once its run is sealed.
func (m *Manager) Health() error {
	list := m.failed.list()
	if len(list) == 0 {
		return nil
	}
	return &HealthError{Failures: list}
}

// logFailure is a session whose log failed, until the run it was writing
// is sealed. It lives in memory only: the disk is what failed. A process
// that stops before sealing leaves the run open, and the next start treats
// it as a crash (resumes it, or ends it interrupted when a tool call's
// outcome is unknown).
type logFailure struct {
	session, run string
	err          error
	at           time.Time
	done         chan struct{} // closed once resolved: ends the retry loop

	// Guarded by failures.mu.
	attempts int
	last     error
}

// failures are the pending log failures, by session.
type failures struct {
	mu   sync.Mutex
	byID map[string]*logFailure
}

func (fs *failures) get(id string) *logFailure {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.byID[id]
}

// add records a failure of session id, unless one is pending already, and
// reports whether it did.
func (fs *failures) add(f *logFailure) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.byID[f.session] != nil {
		return false
	}
	if fs.byID == nil {
		fs.byID = map[string]*logFailure{}
	}
	fs.byID[f.session] = f
	return true
}

// resolve forgets f (its run is sealed, or there is nothing left to seal)
// and reports whether it was pending.
func (fs *failures) resolve(f *logFailure) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.byID[f.session] != f {
		return false
	}
	delete(fs.byID, f.session)
	close(f.done)
	return true
}

// attempted records a failed attempt to seal f and returns the error the
// session answers with meanwhile.
func (fs *failures) attempted(f *logFailure, err error) *LogError {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f.attempts++
	f.last = err
	return &LogError{SessionID: f.session, RunID: f.run, Err: f.err, Seal: err}
}

func (fs *failures) list() []LogFailure {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]LogFailure, 0, len(fs.byID))
	for _, f := range fs.byID {
		lf := LogFailure{SessionID: f.session, RunID: f.run, Error: f.err.Error(), Since: f.at, SealAttempts: f.attempts}
		if f.last != nil {
			lf.SealError = f.last.Error()
		}
		out = append(out, lf)
	}
	slices.SortFunc(out, func(a, b LogFailure) int {
		if c := a.Since.Compare(b.Since); c != 0 {
			return c
		}
		return strings.Compare(a.SessionID, b.SessionID)
	})
	return out
}

// logFailed records that session id's log failed while writing run's
// records, logs it (once per failure: the seal attempts log at debug) and
// starts the retry loop.
func (m *Manager) logFailed(id, run string, err error) {
	f := &logFailure{session: id, run: run, err: err, at: m.now(), done: make(chan struct{})}
	if !m.failed.add(f) {
		return
	}
	m.log.Error("session log write failed: the run ends interrupted once the log can be written; the session refuses work until then",
		"session", id, "run", run, "error", err)
	m.bg.Add(1)
	go func() {
		defer m.bg.Done()
		m.retrySeal(f)
	}()
}

// retrySeal tries to seal f's run after Options.SealRetry, then again at
// doubling intervals up to maxSealRetry, until it is sealed or the host
// stops. An attempt is an open of the session, which seals first (see
// actor.open); a request that opens the session in between is an attempt
// too, so the loop only bounds how long a session nobody touches stays
// degraded.
func (m *Manager) retrySeal(f *logFailure) {
	delay := m.opts.SealRetry
	for {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-f.done:
			t.Stop()
			return
		case <-m.quit:
			t.Stop()
			return
		}
		a, err := m.acquire(f.session, nil)
		if err == nil {
			m.release(a)
		}
		if errors.Is(err, ErrShuttingDown) {
			return
		}
		delay = min(2*delay, maxSealRetry)
	}
}

// sealAtExit makes a last attempt, as the host stops, to seal each run
// whose log failed, so that it does not resume on the next start.
func (m *Manager) sealAtExit() {
	for _, lf := range m.failed.list() {
		a := newActor(m, lf.SessionID)
		a.openErr = a.open(nil)
		close(a.ready)
		if a.openErr == nil {
			a.close()
		}
	}
}

// seal ends the run f names, if it is still open in st: RunFinished
// interrupted with the log's error, naming the calls sent without a result
// as indeterminate and those never sent as not dispatched, exactly as a
// stop would. It is computed from the records read back, so a failed batch
// that did reach the disk counts as written. It runs in open, before the
// session serves anything. It reports whether it wrote the end.
func (a *actor) seal(f *logFailure) (bool, error) {
	r := a.st.open()
	if r == nil || r.id != f.run {
		return false, nil // the failed batch was RunStarted and it is gone, or another writer ended the run
	}
	end := r.stopEnd(EndInterrupted)
	end.Error = &ErrorInfo{Code: "log_failed", Message: f.err.Error()}
	rec := Record{Type: RecRunFinished, RunID: r.id, At: a.m.now(), Finished: end}
	b, err := encodeRecord(rec)
	if err != nil {
		return false, err
	}
	seq, err := a.w.Append(b)
	if err != nil {
		return false, err
	}
	return true, a.st.apply(seq, rec)
}
