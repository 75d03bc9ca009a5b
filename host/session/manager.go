package session

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/chain"
)

// Chains resolves a chain name ("default", or "default/glm" to pin one
// provider) to the chain a model step runs through. *daemon.Daemon is one.
type Chains interface {
	Chain(name string) (*chain.Chain, error)
}

// Options configures a Manager.
type Options struct {
	// Dir holds one directory per session: <state_dir>/sessions.
	Dir    string
	Chains Chains
	// Tools are the tool blocks a run may be allowed, by block name: the
	// configured tool plugins, plus Recall under RecallBlock when the
	// configuration has a vault.
	Tools map[string]Tool
	// Catalog describes the model each provider block serves; a run
	// freezes the entries of its chain (their prices are its cost basis).
	// Nil: each hop's own model and window, no prices.
	Catalog Catalog
	Logger  hclog.Logger

	// Grace is how long in-flight tool calls may finish after a cancel or
	// SIGTERM before they are abandoned (and named indeterminate). 5s.
	Grace time.Duration
	// ToolTimeout bounds one tool call; a call that outlives it has an
	// unknown outcome, is reported to the model as such, and is never
	// sent again. 5m.
	ToolTimeout time.Duration
	// IdleClose is how long a session with no run and no subscriber keeps
	// its WAL open (and its writer lease). 1m.
	IdleClose time.Duration
	// SealRetry is how long after a failed write of a session's log (a full
	// disk) the host first tries again to seal the run it was writing; the
	// wait then doubles, up to a minute. Any request that opens the session
	// tries too. 1s.
	SealRetry time.Duration
	// DefaultChain (default "default") and DefaultMaxTurns (10) fill a
	// request that names none.
	DefaultChain    string
	DefaultMaxTurns int

	// Now and NewRunID replace the clock and the run id source in tests.
	Now      func() time.Time
	NewRunID func() string
	// LookupEnv reads the failpoint settings of a -tags failpoints build.
	LookupEnv func(string) (string, bool)
}

func (o *Options) defaults() {
	if o.Grace <= 0 {
		o.Grace = 5 * time.Second
	}
	if o.ToolTimeout <= 0 {
		o.ToolTimeout = 5 * time.Minute
	}
	if o.IdleClose <= 0 {
		o.IdleClose = time.Minute
	}
	if o.SealRetry <= 0 {
		o.SealRetry = time.Second
	}
	if o.DefaultChain == "" {
		o.DefaultChain = "default"
	}
	if o.DefaultMaxTurns <= 0 {
		o.DefaultMaxTurns = 10
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewRunID == nil {
		o.NewRunID = func() string { return "run_" + strings.ToLower(rand.Text()[:20]) }
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
}

// Manager serves every session of one state directory: it opens each
// session's actor on demand, runs their loops, keeps the projections and
// shuts it all down on SIGTERM.
type Manager struct {
	opts Options
	log  hclog.Logger
	fp   *failpoints
	proj projections

	quit         chan struct{} // closed by Shutdown: subscribers end
	runs         sync.WaitGroup
	bg           sync.WaitGroup // seal retry loops
	shutdownOnce sync.Once
	failed       failures     // sessions whose log failed, until their run is sealed
	arch         archiveIndex // the manifests of the archive's containers
	indexFailed  atomic.Bool  // an open-run index entry could not be written: do not call the index complete

	mu      sync.Mutex
	actors  map[string]*actor
	closing bool
}

// New returns a manager. It does no I/O: Start rebuilds the projections
// and resumes interrupted runs; without Start, sessions open on first use.
func New(opts Options) (*Manager, error) {
	if opts.Dir == "" || opts.Chains == nil {
		return nil, errors.New("session: Options.Dir and Options.Chains are required")
	}
	opts.defaults()
	return &Manager{
		opts: opts, log: opts.Logger.Named("sessions"), fp: newFailpoints(opts.LookupEnv),
		quit: make(chan struct{}), actors: map[string]*actor{},
	}, nil
}

// Start resumes every run a crash left open, or ends it interrupted when a
// tool call's outcome is unknown. It opens only the sessions the open-run
// index names (see openruns.go), dropping entries whose session is gone;
// every other session opens on first use, which rebuilds its projection
// from the WAL. When the index is missing or damaged, Start opens every
// session of the directory instead, which rebuilds the index. A session
// another process holds is listed from its snapshot; one that cannot be
// read is listed with its error. Start fails only when the directory
// cannot be listed.
func (m *Manager) Start(ctx context.Context) error {
	ids, complete := m.openRuns()
	if !complete {
		return m.rebuildIndex(ctx)
	}
	// A few at a time: opening a session is a handful of file system
	// calls, which overlap well.
	work := make(chan string)
	var wg sync.WaitGroup
	for range min(startWorkers, len(ids)) {
		wg.Go(func() {
			for id := range work {
				if !m.exists(id) {
					m.markClosed(id) // its session is gone
					continue
				}
				m.startOne(id)
			}
		})
	}
	var err error
	for _, id := range ids {
		if err = ctx.Err(); err != nil {
			break
		}
		work <- id
	}
	close(work)
	wg.Wait()
	return err
}

// startWorkers is how many sessions Start opens at once.
const startWorkers = 8

// rebuildIndex opens every session, which writes the index entry of each
// one with an open run, then marks the index complete.
func (m *Manager) rebuildIndex(ctx context.Context) error {
	ids, err := sessionIDs(m.opts.Dir)
	if err != nil {
		return err
	}
	m.log.Info("open-run index missing or damaged: opening every session to rebuild it", "sessions", len(ids))
	m.repairIndex()
	held := false
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		if errors.Is(m.startOne(id), ErrLocked) {
			held = true // its holder writes its entry; check again next start
		}
	}
	if held || m.indexFailed.Load() {
		return nil
	}
	if err := m.completeIndex(); err != nil {
		m.log.Warn("open-run index not written (the next start opens every session again)", "error", err)
	}
	return nil
}

// startOne opens session id, which resumes its open run, and lets it go.
func (m *Manager) startOne(id string) error {
	a, err := m.acquire(id, nil)
	if err == nil {
		m.release(a)
		return nil
	}
	m.proj.put(m.unreadable(id, err))
	if !errors.Is(err, ErrLocked) {
		m.log.Error("session cannot be opened", "session", id, "error", err)
	}
	return err
}

// unreadable is the projection of a session Start could not open: its
// snapshot when another process holds it, else its error.
func (m *Manager) unreadable(id string, err error) *SessionInfo {
	dir := m.sessionDir(id)
	md, _ := readMeta(dir)
	if errors.Is(err, ErrLocked) {
		if snap, serr := readSnapshot(dir); serr == nil {
			snap.HeldElsewhere = true
			return snap
		}
	}
	return &SessionInfo{ID: id, Key: md.Key, CreatedAt: md.CreatedAt, Runs: []RunInfo{}, HeldElsewhere: errors.Is(err, ErrLocked), Error: err.Error()}
}

// Shutdown stops admission, stops every run (model calls at once, tool
// calls after the grace period), seals each run interrupted, ends every
// subscriber and closes the WALs. It returns when that is done or ctx ends
// (runs still unsealed then resume or are interrupted at the next start).
// Later calls wait for the first.
func (m *Manager) Shutdown(ctx context.Context) error {
	var err error
	m.shutdownOnce.Do(func() { err = m.shutdown(ctx) })
	return err
}

func (m *Manager) shutdown(ctx context.Context) error {
	m.mu.Lock()
	m.closing = true
	actors := m.actorList()
	m.mu.Unlock()
	for _, a := range actors {
		a.stopRun(EndInterrupted)
	}
	done := make(chan struct{})
	go func() { m.runs.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("session: shutdown: runs still going: %w", ctx.Err())
	}
	close(m.quit)
	m.mu.Lock()
	actors = m.actorList()
	m.mu.Unlock()
	for _, a := range actors {
		if cerr := a.close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	m.bg.Wait()
	if ctx.Err() == nil {
		m.sealAtExit()
	}
	return err
}

func (m *Manager) actorList() []*actor {
	out := make([]*actor, 0, len(m.actors))
	for _, a := range m.actors {
		out = append(out, a)
	}
	return out
}

// acquire returns the open actor of session id, opening it if need be (and
// creating the session when create is set). The caller must release it.
// Opening resumes the session's open run.
func (m *Manager) acquire(id string, create *Key) (*actor, error) {
	for {
		m.mu.Lock()
		if m.closing {
			m.mu.Unlock()
			return nil, ErrShuttingDown
		}
		a := m.actors[id]
		if a == nil {
			a = newActor(m, id)
			a.refs = 1
			m.actors[id] = a
			m.mu.Unlock()
			err := a.open(create)
			m.mu.Lock()
			a.openErr = err
			if err != nil {
				delete(m.actors, id)
			}
			close(a.ready)
			m.mu.Unlock()
			if err != nil {
				return nil, err
			}
			a.resume()
			return m.forWrite(a, create)
		}
		if a.closing {
			m.mu.Unlock()
			<-a.closed
			continue
		}
		a.refs++
		m.mu.Unlock()
		<-a.ready
		if a.openErr != nil {
			if create != nil && errors.Is(a.openErr, ErrNotFound) {
				continue // a reader raced our creation: open again, creating
			}
			return nil, a.openErr
		}
		return m.forWrite(a, create)
	}
}

// release drops a reference. The last one schedules the actor's close after
// IdleClose, or at once when its WAL failed.
func (m *Manager) release(a *actor) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a.refs--
	if a.refs > 0 || a.closing || (m.actors[a.id] != a && !a.retired) {
		return
	}
	delay := m.opts.IdleClose
	if a.failed.Load() {
		delay = 0
	}
	if a.idle != nil {
		a.idle.Stop()
	}
	a.idle = time.AfterFunc(delay, func() { m.closeIfIdle(a) })
}

// closeIfIdle closes a when nothing holds it, releasing its writer lease.
func (m *Manager) closeIfIdle(a *actor) {
	m.mu.Lock()
	if a.refs > 0 || a.closing || (m.actors[a.id] != a && !a.retired) {
		m.mu.Unlock()
		return
	}
	a.closing = true
	m.mu.Unlock()
	if err := a.close(); err != nil {
		m.log.Warn("session close", "session", a.id, "error", err)
	}
}

// retire takes an actor whose WAL failed out of the map, so that the next
// acquire opens the session afresh while this one winds down; release
// closes it once nothing holds it.
func (m *Manager) retire(a *actor) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.actors[a.id] == a {
		delete(m.actors, a.id)
	}
	a.retired = true
}

// forget removes a closed actor from the map and wakes acquirers waiting
// for it.
func (m *Manager) forget(a *actor) {
	m.mu.Lock()
	if m.actors[a.id] == a {
		delete(m.actors, a.id)
	}
	a.closing = true
	m.mu.Unlock()
}

// admitting reports ErrShuttingDown once Shutdown began.
func (m *Manager) admitting() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closing {
		return ErrShuttingDown
	}
	return nil
}

// startRunner counts a run goroutine, unless Shutdown began.
func (m *Manager) startRunner(a *actor) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closing {
		return ErrShuttingDown
	}
	a.refs++
	m.runs.Add(1)
	return nil
}

// Sessions lists every session of the directory, most recently active
// first, without usage facts. A session created since Start (by `axon run`,
// say) is opened to be listed, or shown from its snapshot while its
// process holds it.
func (m *Manager) Sessions() []SessionInfo {
	ids, err := sessionIDs(m.opts.Dir)
	if err != nil {
		m.log.Warn("cannot list the sessions directory", "error", err)
	}
	var found projections // sessions held by another process: listed, not kept
	for _, id := range ids {
		if _, known := m.proj.get(id); known {
			continue
		}
		info, err := m.Session(id)
		if err != nil {
			info = m.unreadable(id, err)
		}
		if _, opened := m.proj.get(id); !opened {
			found.put(info)
		}
	}
	list := append(m.proj.list(), found.list()...)
	sortSessions(list)
	out := make([]SessionInfo, len(list))
	for i, s := range list {
		out[i] = s.summary()
		if f := m.failed.get(s.ID); f != nil && out[i].Error == "" {
			out[i].Error = (&LogError{SessionID: f.session, RunID: f.run, Err: f.err}).Error()
		}
	}
	return out
}

// Session returns one session's projection, opening the session if it is
// not open (which rebuilds it from the WAL).
func (m *Manager) Session(id string) (*SessionInfo, error) {
	if !validID(id) || !m.exists(id) {
		return nil, fmt.Errorf("%w: session %q", ErrNotFound, id)
	}
	a, err := m.acquire(id, nil)
	if err != nil {
		if errors.Is(err, ErrLogFailed) {
			// The run index as it was when the log failed, saying so.
			if info, ok := m.proj.get(id); ok {
				c := *info
				c.Error = err.Error()
				return &c, nil
			}
			return m.unreadable(id, err), nil
		}
		if errors.Is(err, ErrLocked) {
			return m.unreadable(id, err), nil
		}
		return nil, err
	}
	defer m.release(a)
	info, _ := m.proj.get(id)
	return info, nil
}
