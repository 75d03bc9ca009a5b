package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/axonhq/axon/host/wal"
	"github.com/axonhq/axon/host/walarchive"
)

// ArchiveOptions selects the logs an archive pass packs.
type ArchiveOptions struct {
	// OlderThan keeps logs last written less than this long ago live; 0
	// archives any age.
	OlderThan time.Duration
	// Sessions limits the pass to these session ids; empty: every session.
	Sessions []string
	// Now is the clock OlderThan is measured on (time.Now).
	Now func() time.Time
	// MaxSessions and MaxBytes bound one container (256 logs, 256 MiB; a
	// larger log goes alone). The pass holds the writer lease of every log
	// of the container it is writing.
	MaxSessions int
	MaxBytes    int64
}

// ArchiveResult is what a pass did.
type ArchiveResult struct {
	Containers []string           // written, in order
	Archived   []walarchive.Entry // logs moved into them
	Skipped    []ArchiveSkip      // sessions left live, with the reason
	Superseded []string           // "container: session": archived copies of a live log, marked superseded
	Removed    []string           // containers deleted, every copy in them superseded
}

// ArchiveSkip is a session a pass did not archive.
type ArchiveSkip struct {
	Session string
	Reason  string
	Recent  bool // only because it was written within OlderThan
}

// Archive moves the logs of the sessions under sessionsDir that are
// eligible into sealed containers in <state_dir>/wal-archive. A log is
// eligible when its session has no open run (neither an open-run index
// entry nor a run its records leave running or paused), its writer lease
// is free (no axon has the session open; the pass holds it until the log
// is gone), it is clean (no torn tail, not corrupt) and it was last
// written at least OlderThan ago. Steps, each durable before the next:
// the container is written, synced, renamed into place and its directory
// synced; then each log is removed and its directory synced. A crash
// before the rename archives nothing; after it, a log still live wins over
// its archived copy, which this pass marks superseded the next time it
// meets the session (and archives the log again if it is eligible). The
// pass first cleans up: temporary containers of a crashed pass are
// removed, and containers whose every copy is superseded are deleted at
// the end. One pass runs at a time per archive.
func Archive(ctx context.Context, sessionsDir string, opts ArchiveOptions) (ArchiveResult, error) {
	p := &archivePass{
		opts: opts, sessions: sessionsDir, dir: archiveDir(sessionsDir),
		arch: &archiveIndex{}, fp: newFailpoints(os.LookupEnv),
	}
	return p.run(ctx)
}

type archivePass struct {
	opts     ArchiveOptions
	sessions string
	dir      string
	arch     *archiveIndex
	fp       *failpoints
	res      ArchiveResult

	batch     []walarchive.Source
	leases    []*wal.Lease
	batchSize int64
}

func (p *archivePass) run(ctx context.Context) (ArchiveResult, error) {
	if p.opts.Now == nil {
		p.opts.Now = time.Now
	}
	if p.opts.MaxSessions <= 0 {
		p.opts.MaxSessions = 256
	}
	if p.opts.MaxBytes <= 0 {
		p.opts.MaxBytes = 256 << 20
	}
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		return p.res, fmt.Errorf("session: archive: %w", err)
	}
	pass, err := wal.Lock(filepath.Join(p.dir, ".pass"))
	if errors.Is(err, wal.ErrLocked) {
		return p.res, fmt.Errorf("session: archive: another archive pass is running: %w", err)
	}
	if err != nil {
		return p.res, fmt.Errorf("session: archive: %w", err)
	}
	defer pass.Release()
	if err := walarchive.Clean(p.dir); err != nil {
		return p.res, err
	}
	ids, err := sessionIDs(p.sessions)
	if err != nil {
		return p.res, err
	}
	if len(p.opts.Sessions) > 0 {
		for _, id := range p.opts.Sessions {
			if !slices.Contains(ids, id) {
				p.skip(id, "no such session", false)
			}
		}
		ids = slices.DeleteFunc(ids, func(id string) bool { return !slices.Contains(p.opts.Sessions, id) })
	}
	defer p.releaseBatch()
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return p.res, err
		}
		if err := p.one(id); err != nil {
			return p.res, err
		}
	}
	if err := p.flush(); err != nil {
		return p.res, err
	}
	return p.res, p.collect()
}

func (p *archivePass) skip(id, reason string, recent bool) {
	p.res.Skipped = append(p.res.Skipped, ArchiveSkip{Session: id, Reason: reason, Recent: recent})
}

// one looks at session id and adds its log to the batch when it is
// eligible, keeping its lease. Only errors that stop the pass are returned.
func (p *archivePass) one(id string) error {
	dir := filepath.Join(p.sessions, id)
	path := filepath.Join(dir, walFile)
	ls, err := wal.Lock(path)
	if errors.Is(err, wal.ErrLocked) {
		p.skip(id, fmt.Sprintf("in use: %v", err), false)
		return nil
	}
	if err != nil {
		p.skip(id, err.Error(), false)
		return nil
	}
	keep := false
	defer func() {
		if !keep {
			ls.Release()
		}
	}()
	os.Remove(filepath.Join(dir, restoreTmp))
	copies, _, err := p.arch.copies(p.dir, id)
	if err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if len(p.opts.Sessions) > 0 {
			p.skip(id, "archived already", false)
		}
		return nil
	}
	if err != nil {
		p.skip(id, err.Error(), false)
		return nil
	}
	rep, err := wal.Verify(path)
	switch {
	case err != nil:
		p.skip(id, fmt.Sprintf("log does not verify: %v", err), false)
		return nil
	case rep.End != rep.Size:
		p.skip(id, "torn tail (the next open of the session truncates it)", false)
		return nil
	}
	// A live log wins over an archived copy that a crash or a restore
	// left behind: mark that copy superseded, once the live log is shown
	// to continue it.
	for _, c := range copies {
		if c.superseded {
			continue
		}
		if c.e.Lineage != rep.Lineage.String() || c.e.Records > rep.LastSeq {
			p.skip(id, fmt.Sprintf("live log (lineage %s, %d records) does not continue its archived copy in %s (lineage %s, %d records); both left alone",
				rep.Lineage, rep.LastSeq, c.c.Path, c.e.Lineage, c.e.Records), false)
			return nil
		}
		if err := supersede(c.c.Path, id); err != nil {
			return err
		}
		p.fp.hit("archive_superseded_stale_copy")
		p.res.Superseded = append(p.res.Superseded, c.c.Name()+": "+id)
	}
	if _, err := os.Lstat(filepath.Join(p.sessions, openRunsDir, id)); err == nil {
		p.skip(id, "open run (it has an entry in the open-run index, sessions/.open)", false)
		return nil
	}
	if age := p.opts.Now().Sub(fi.ModTime()); p.opts.OlderThan > 0 && age < p.opts.OlderThan {
		p.skip(id, fmt.Sprintf("last written %s, less than %s ago", fi.ModTime().UTC().Format(time.RFC3339), p.opts.OlderThan), true)
		return nil
	}
	if reason, err := openRunOf(path, fi.Size()); err != nil || reason != "" {
		if err != nil {
			reason = err.Error()
		}
		p.skip(id, reason, false)
		return nil
	}
	sum, size, err := walarchive.Digest(path)
	if err != nil {
		p.skip(id, err.Error(), false)
		return nil
	}
	if len(p.batch) > 0 && (len(p.batch) >= p.opts.MaxSessions || p.batchSize+size > p.opts.MaxBytes) {
		if err := p.flush(); err != nil {
			return err
		}
	}
	p.batch = append(p.batch, walarchive.Source{Path: path, Entry: walarchive.Entry{
		Session: id, Lineage: rep.Lineage.String(), Records: rep.LastSeq, Size: size, SHA256: sum, LastWrite: fi.ModTime().UTC(),
	}})
	p.leases = append(p.leases, ls)
	p.batchSize += size
	keep = true
	return nil
}

// openRunOf names the run a log leaves running or paused, "" when none.
func openRunOf(path string, size int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	im, err := wal.ReadImage(f, size, path)
	if err != nil {
		return "", err
	}
	st, err := replayState(im)
	if err != nil {
		return "", err
	}
	if r := st.open(); r != nil {
		return fmt.Sprintf("open run %s (%s)", r.id, r.status), nil
	}
	return "", nil
}

// flush seals the batch into a container, then removes its live logs.
func (p *archivePass) flush() error {
	if len(p.batch) == 0 {
		return nil
	}
	defer p.releaseBatch()
	path, err := walarchive.Write(p.dir, p.opts.Now(), p.batch, p.fp.hit)
	if err != nil {
		return err
	}
	p.fp.hit("archive_container_sealed")
	p.res.Containers = append(p.res.Containers, path)
	for _, s := range p.batch {
		if err := os.Remove(s.Path); err != nil {
			return fmt.Errorf("session: archive: %w (its archived copy is sealed in %s; the live log still wins)", err, path)
		}
		p.fp.hit("archive_live_removed")
		if err := syncDir(filepath.Dir(s.Path)); err != nil {
			return err
		}
		p.res.Archived = append(p.res.Archived, s.Entry)
	}
	return nil
}

func (p *archivePass) releaseBatch() {
	for _, ls := range p.leases {
		ls.Release()
	}
	p.batch, p.leases, p.batchSize = nil, nil, 0
}

// collect deletes the containers whose every copy is superseded, then
// their superseded marks.
func (p *archivePass) collect() error {
	cs, _, err := p.arch.containers(p.dir)
	if err != nil {
		return err
	}
	for _, c := range cs {
		all := true
		for _, e := range c.Manifest.Entries {
			sup, err := isSuperseded(c.Path, e.Session)
			if err != nil {
				return err
			}
			all = all && sup
		}
		if !all {
			continue
		}
		if err := walarchive.Remove(c.Path); err != nil {
			return err
		}
		p.fp.hit("archive_container_removed")
		if err := os.RemoveAll(c.Path + supersededExt); err != nil {
			return fmt.Errorf("session: archive: %w", err)
		}
		p.res.Removed = append(p.res.Removed, c.Path)
	}
	// Marks whose container is gone (a crash between the two removals).
	ents, err := os.ReadDir(p.dir)
	if err != nil {
		return fmt.Errorf("session: archive: %w", err)
	}
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), supersededExt)
		if !ok || !walarchive.IsContainer(name) {
			continue
		}
		if _, err := os.Stat(filepath.Join(p.dir, name)); errors.Is(err, fs.ErrNotExist) {
			os.RemoveAll(filepath.Join(p.dir, e.Name()))
		}
	}
	return nil
}

// Archive runs an archive pass over the manager's sessions, as axon
// serve's schedule does. Sessions it holds open without using them (no
// request, no subscriber, no run: an open waiting for IdleClose) are
// closed first, so their writer leases are free; a session in use keeps
// its lease and is not archived, and one with an open run never is.
func (m *Manager) Archive(ctx context.Context, opts ArchiveOptions) (ArchiveResult, error) {
	m.mu.Lock()
	var idle []*actor
	for _, a := range m.actors {
		if a.refs == 0 && !a.closing {
			idle = append(idle, a)
		}
	}
	m.mu.Unlock()
	for _, a := range idle {
		m.closeIfIdle(a)
	}
	return Archive(ctx, m.opts.Dir, opts)
}
