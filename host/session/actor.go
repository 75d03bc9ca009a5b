package session

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// errActorClosed is returned by commands sent to a closed actor.
var errActorClosed = errors.New("session: closed")

// actor serves one session. It holds the session's writer lease (its open
// WAL) and owns the session state: every command (admission, cancel,
// resume, a run's commit) is a function run by its one goroutine, in the
// order received, so the state needs no lock and records reach the WAL in
// the order they are folded. At most one run goroutine drives the loop; it
// talks to the actor through the same command queue.
type actor struct {
	m   *Manager
	id  string
	dir string

	cmds      chan func()
	quit      chan struct{} // closed to stop the goroutine
	done      chan struct{} // closed when the goroutine has returned
	closed    chan struct{} // closed once the actor is closed and forgotten
	closeOnce sync.Once
	lanes     *lanes
	failed    atomic.Bool   // the WAL failed: close as soon as nothing holds the actor
	lost      chan struct{} // closed when the WAL failed: subscribers end

	// Owned by the goroutine (set by open before it starts).
	md     meta
	w      sessionLog
	st     *sessionState
	active *runner
	broken error

	// Guarded by m.mu.
	refs    int
	ready   chan struct{} // closed when open has finished, openErr set
	openErr error
	closing bool
	retired bool // its WAL failed: out of m.actors, closed once nothing holds it
	idle    *time.Timer
}

func newActor(m *Manager, id string) *actor {
	return &actor{
		m: m, id: id, dir: m.sessionDir(id),
		cmds: make(chan func()), quit: make(chan struct{}), done: make(chan struct{}), closed: make(chan struct{}),
		lost: make(chan struct{}), ready: make(chan struct{}),
	}
}

// open takes the writer lease, replays the WAL into the state and starts
// the goroutine. With create it makes the session first: its directory,
// the WAL, then the key (meta), all durable before the first record.
//
// When the session's log failed earlier, open first seals the run that
// failure left open (see actor.seal). Until that is written, open fails
// with a *LogError and the session serves nothing: a session whose state on
// disk says "running" with nobody driving it must not be shown or admitted
// to as if it were.
func (a *actor) open(create *Key) error {
	f := a.m.failed.get(a.id)
	err := a.load(create, f)
	switch {
	case f == nil:
		return err
	case errors.Is(err, ErrNotFound):
		a.m.failed.resolve(f) // the session is gone: nothing to seal
		return err
	case err != nil:
		lerr := a.m.failed.attempted(f, err)
		a.m.log.Debug("run of a failed session log not sealed yet", "session", a.id, "run", f.run, "error", err)
		return lerr
	}
	return nil
}

func (a *actor) load(create *Key, f *logFailure) error {
	if create == nil && !a.m.exists(a.id) {
		return fmt.Errorf("%w: session %q", ErrNotFound, a.id)
	}
	if create != nil {
		if err := makeDirs(a.m.opts.Dir, a.dir); err != nil {
			return err
		}
	}
	w, err := a.m.logs().open(a.id, create != nil)
	if err != nil {
		return fmt.Errorf("session %s: %w", a.id, err)
	}
	fail := func(err error) error { return errors.Join(err, w.Close()) }
	if create != nil {
		if err := writeMeta(a.dir, meta{Key: *create, CreatedAt: a.m.now()}); err != nil {
			return fail(err)
		}
	}
	md, err := readMeta(a.dir)
	if err != nil {
		return fail(fmt.Errorf("session %s: %w", a.id, err))
	}
	st, err := replayState(w)
	if err != nil {
		return fail(fmt.Errorf("session %s: %w", a.id, err))
	}
	if n := w.Truncated(); n > 0 {
		a.m.log.Warn("truncated a torn tail of the session log", "session", a.id, "bytes", n)
	}
	// Keep the open-run index true to the log: a session written before
	// the index existed gets its entry, a stale entry goes.
	if st.open() != nil {
		if err := a.m.markOpen(a.id); err != nil {
			a.m.indexFailed.Store(true)
			a.m.log.Warn("open-run index entry not written (the run resumes on the session's first use)", "session", a.id, "error", err)
		}
	} else {
		a.m.markClosed(a.id)
	}
	a.md, a.w, a.st = md, w, st
	if f != nil {
		sealed, err := a.seal(f)
		if err != nil {
			w.Close() // the WAL is disabled: it returns err again
			return err
		}
		if a.m.failed.resolve(f) {
			if sealed {
				a.m.log.Info("run sealed interrupted after its log failed; the session takes work again", "session", a.id, "run", f.run)
			} else {
				a.m.log.Info("session log writable again; its failed run had nothing left to seal", "session", a.id, "run", f.run)
			}
		}
	}
	a.lanes = newLanes(st.last)
	a.publish(true)
	go a.loop()
	return nil
}

func (a *actor) loop() {
	defer close(a.done)
	for {
		select {
		case fn := <-a.cmds:
			fn()
		case <-a.quit:
			return
		}
	}
}

// exec runs fn on the actor's goroutine and returns its error.
func (a *actor) exec(fn func() error) error {
	errc := make(chan error, 1)
	select {
	case a.cmds <- func() { errc <- fn() }:
		return <-errc
	case <-a.done:
		return errActorClosed
	}
}

// resume starts the run a crash left open, if any: it continues where its
// durable records say, or ends interrupted (see runState.next).
func (a *actor) resume() {
	a.exec(func() error {
		r := a.st.open()
		if r == nil || r.status != StatusRunning || a.active != nil {
			return nil
		}
		a.m.log.Info("resuming run", "session", a.id, "run", r.id, "steps", len(r.steps))
		return a.startRun(r.id)
	})
}

// startRun starts the goroutine that drives run id. Actor goroutine only.
func (a *actor) startRun(id string) error {
	if err := a.m.startRunner(a); err != nil {
		return err
	}
	rn := newRunner(id)
	a.active = rn
	go func() {
		defer a.m.runs.Done()
		defer a.m.release(a)
		defer close(rn.done)
		a.drive(rn)
		a.exec(func() error {
			if a.active != rn {
				return nil
			}
			a.active = nil
			// The run was resumed while this driver was winding down from
			// its pause: it is running again and nobody drives it.
			if r := a.st.open(); rn.idle && r != nil && r.id == rn.id && r.status == StatusRunning && a.m.admitting() == nil {
				return a.startRun(r.id)
			}
			return nil
		})
	}()
	return nil
}

// stopRun stops the active run, if any: cancelled (the caller asked) or
// interrupted (the host is stopping).
func (a *actor) stopRun(why EndReason) {
	a.exec(func() error {
		if a.active != nil {
			a.active.stop(why)
		}
		return nil
	})
}

// commit appends recs as one batch (one write, one fdatasync) and folds
// them into the state once durable. Actor goroutine only. A failed append
// disables the WAL for good (see fail): the actor refuses every later
// command, and the next open of the session recovers the log and seals the
// run interrupted.
func (a *actor) commit(recs ...Record) (uint64, error) {
	if a.broken != nil {
		return 0, a.broken
	}
	now := a.m.now()
	payloads := make([][]byte, len(recs))
	project, boundary, opens, ends := false, false, false, false
	for i := range recs {
		if recs[i].At.IsZero() {
			recs[i].At = now
		}
		b, err := encodeRecord(recs[i])
		if err != nil {
			return 0, err
		}
		payloads[i] = b
		switch recs[i].Type {
		case RecModelStepFinished:
			project = true
		case RecRunStarted, RecRunFinished, RecRunPaused, RecRunResumed:
			project, boundary = true, true
		}
		switch recs[i].Type {
		case RecRunStarted, RecRunResumed:
			opens = true
		case RecRunFinished:
			ends = true
		}
	}
	if opens {
		// Before the record: a run on disk always has its index entry,
		// so the next start finds it without opening every session.
		// A failure is the disk's, as a failed append would be.
		if err := a.m.markOpen(a.id); err != nil {
			return 0, a.fail(recs[0].RunID, err)
		}
	}
	first, err := a.w.Append(payloads...)
	if err != nil {
		return 0, a.fail(recs[0].RunID, err)
	}
	for i, rec := range recs {
		if err := a.st.apply(first+uint64(i), rec); err != nil {
			return 0, a.fail(rec.RunID, err)
		}
	}
	if project {
		a.publish(boundary)
	}
	if ends && a.st.open() == nil {
		// After the snapshot: one without an index entry is up to date.
		a.m.markClosed(a.id)
	}
	a.lanes.advance(first, payloads)
	return first, nil
}

// fail handles a failed write of run's records. The WAL is closed at once,
// which releases the writer lease, and the actor leaves the manager's map:
// the next command on the session opens a new actor, which recovers the log
// and seals the run, without waiting for this one's subscribers or its run
// goroutine (they are told through lost and wind down on their own). The
// failure is logged and reported by Health until the run is sealed.
// Actor goroutine only.
func (a *actor) fail(run string, err error) error {
	if a.broken != nil {
		return a.broken
	}
	a.broken = &LogError{SessionID: a.id, RunID: run, Err: err}
	a.failed.Store(true)
	a.w.Close() // its error is the sticky one, err
	// Recorded before subscribers are told: a client that has seen its
	// stream end with the failure finds it in Health.
	a.m.logFailed(a.id, run, err)
	close(a.lost)
	a.m.retire(a)
	return a.broken
}

// publish refreshes the session's projection and, with store, its stored
// snapshot. The snapshot is written when a run starts, pauses, resumes or
// ends, and when the session closes: it is what another process lists
// while this one holds the session, so it may lag by the current run's
// model steps (and is then marked stale), never by a run.
func (a *actor) publish(store bool) {
	info := project(a.id, a.md, a.w.Lineage().String(), a.st)
	a.m.proj.put(info)
	if !store {
		return
	}
	if err := writeSnapshot(a.dir, info); err != nil {
		a.m.log.Warn("projection snapshot not written (it is rebuilt from the log)", "session", a.id, "error", err)
	}
}

// close stops the goroutine and closes the WAL, releasing the lease.
func (a *actor) close() error {
	var err error
	a.closeOnce.Do(func() {
		<-a.ready
		if a.openErr == nil {
			closeWAL := func() error {
				if a.broken != nil {
					return nil // closed by fail
				}
				a.publish(true)
				return a.w.Close()
			}
			if xerr := a.exec(closeWAL); xerr != nil && !errors.Is(xerr, errActorClosed) && a.broken == nil {
				err = xerr
			}
			close(a.quit)
			<-a.done
		}
		a.m.forget(a)
		close(a.closed)
	})
	return err
}

// now is the time stamped on records: UTC without a monotonic reading, so
// a record folded live and one read back compare equal.
func (m *Manager) now() time.Time { return m.opts.Now().UTC().Round(0) }

// replayState rebuilds a session's state from its whole log.
func replayState(w interface {
	Replay(uint64, func(uint64, []byte) error) error
}) (*sessionState, error) {
	st := newSessionState()
	err := w.Replay(0, func(seq uint64, payload []byte) error {
		rec, err := DecodeRecord(payload)
		if err != nil {
			return fmt.Errorf("record %d: %w", seq, err)
		}
		return st.apply(seq, rec)
	})
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return st, nil
}
