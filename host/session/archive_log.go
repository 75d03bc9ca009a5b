package session

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/axonhq/axon/host/wal"
)

// sessionLog is the log an actor reads and writes: the live *wal.WAL, or
// an archived copy, which is restored into place before its first Append.
type sessionLog interface {
	Append(records ...[]byte) (uint64, error)
	Replay(from uint64, fn func(seq uint64, payload []byte) error) error
	Lineage() wal.LineageID
	Truncated() int64
	Close() error
}

var (
	_ sessionLog = (*wal.WAL)(nil)
	_ sessionLog = (*archivedLog)(nil)
)

// logOpener opens the logs of one sessions directory.
type logOpener struct {
	sessions string
	arch     *archiveIndex
	fp       *failpoints
}

func (m *Manager) logs() logOpener {
	return logOpener{sessions: m.opts.Dir, arch: &m.arch, fp: m.fp}
}

// open takes session id's writer lease and opens its log: the live WAL
// when there is one, else its archived copy (read from the container until
// the first Append restores it). Only a session being created without a
// meta yet gets a new, empty WAL: one with a meta and no log, live or
// archived, is an error, so a log that cannot be found is never replaced
// by an empty one.
func (o logOpener) open(id string, create bool) (sessionLog, error) {
	dir := filepath.Join(o.sessions, id)
	ls, err := wal.Lock(filepath.Join(dir, walFile))
	if err != nil {
		return nil, err
	}
	w, err := ls.Open(false)
	if err == nil {
		return w, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, errors.Join(err, ls.Release())
	}
	os.Remove(filepath.Join(dir, restoreTmp)) // a restore a crash cut short: the archived copy still counts
	cur, err := o.arch.current(archiveDir(o.sessions), id)
	if err != nil {
		return nil, errors.Join(err, ls.Release())
	}
	if cur != nil {
		return &archivedLog{o: o, dir: dir, id: id, lease: ls, cp: *cur}, nil
	}
	if _, err := os.Stat(filepath.Join(dir, metaFile)); create && errors.Is(err, fs.ErrNotExist) {
		w, err := ls.Open(true)
		if err != nil {
			return nil, errors.Join(err, ls.Release())
		}
		return w, nil
	}
	return nil, errors.Join(fmt.Errorf("session %s has no log: no %s and no archived copy in %s", id, filepath.Join(dir, walFile), archiveDir(o.sessions)), ls.Release())
}

// archivedLog is a session whose log is in the archive. It holds the
// session's writer lease from the open on, so no other process restores or
// writes it meanwhile. Reads come from the container (checked against the
// manifest's digest every time); the first Append, or writable, restores
// the log into the session's directory and continues on it.
type archivedLog struct {
	o     logOpener
	dir   string
	id    string
	lease *wal.Lease
	cp    archivedCopy
	live  *wal.WAL // once restored
}

func (l *archivedLog) Lineage() wal.LineageID {
	if l.live != nil {
		return l.live.Lineage()
	}
	var id wal.LineageID
	hex.Decode(id[:], []byte(l.cp.e.Lineage)) // checked against the log's header whenever it is read
	return id
}

func (l *archivedLog) Truncated() int64 { return 0 }

func (l *archivedLog) Replay(from uint64, fn func(uint64, []byte) error) error {
	if l.live != nil {
		return l.live.Replay(from, fn)
	}
	_, im, err := l.cp.c.Log(l.id)
	if err != nil {
		return fmt.Errorf("session %s: archived log: %w", l.id, err)
	}
	return im.Replay(from, fn)
}

func (l *archivedLog) Append(records ...[]byte) (uint64, error) {
	if err := l.restore(); err != nil {
		return 0, err
	}
	return l.live.Append(records...)
}

func (l *archivedLog) Close() error {
	if l.live != nil {
		return l.live.Close()
	}
	return l.lease.Release()
}

// restore puts the archived log back in the session's directory, once:
// its bytes, checked against the manifest digest and as a log, are written
// to wal.restore and synced, renamed to wal and the directory synced; then
// the archived copy is marked superseded and the log opened under the
// lease. A crash before the rename leaves the archive's copy in charge (the
// temporary file is removed by the next open); after it, the live log wins
// and the next archive pass marks the copy superseded.
func (l *archivedLog) restore() error {
	if l.live != nil {
		return nil
	}
	b, _, err := l.cp.c.Log(l.id)
	if err != nil {
		return fmt.Errorf("session %s: not restored from the archive: %w", l.id, err)
	}
	tmp := filepath.Join(l.dir, restoreTmp)
	if err := writeSynced(tmp, b); err != nil {
		return fmt.Errorf("session %s: restore: %w", l.id, err)
	}
	l.o.fp.hit("restore_synced")
	if err := os.Rename(tmp, filepath.Join(l.dir, walFile)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("session %s: restore: %w", l.id, err)
	}
	l.o.fp.hit("restore_renamed")
	if err := syncDir(l.dir); err != nil {
		return fmt.Errorf("session %s: restore: %w", l.id, err)
	}
	if err := supersede(l.cp.c.Path, l.id); err != nil {
		return fmt.Errorf("session %s: restore: %w", l.id, err)
	}
	l.o.fp.hit("restore_superseded")
	w, err := l.lease.Open(false)
	if err != nil {
		return fmt.Errorf("session %s: restore: %w", l.id, err)
	}
	l.live = w
	return nil
}

// writeSynced writes b to a new file at path and syncs it.
func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// writable restores the actor's log if it is an archived copy, before a
// command that writes (a new run). Actor goroutine only.
func (a *actor) writable() error {
	if l, ok := a.w.(*archivedLog); ok {
		return l.restore()
	}
	return nil
}

// forWrite makes an actor acquired to create or send to a session
// writable, releasing it when the session's archived log cannot be
// restored (a *walarchive.DigestError says why).
func (m *Manager) forWrite(a *actor, create *Key) (*actor, error) {
	if create == nil {
		return a, nil
	}
	if err := a.exec(a.writable); err != nil {
		m.release(a)
		return nil, err
	}
	return a, nil
}

// Restore puts session id's archived log back in place (digest checked),
// as a new run on it would: for `axon wal restore`. A session whose log is
// live already is left alone.
func Restore(sessionsDir, id string) (restored bool, err error) {
	o := logOpener{sessions: sessionsDir, arch: &archiveIndex{}, fp: newFailpoints(os.LookupEnv)}
	if !validID(id) {
		return false, fmt.Errorf("%w: session %q", ErrNotFound, id)
	}
	if _, err := os.Stat(filepath.Join(sessionsDir, id, metaFile)); err != nil {
		return false, fmt.Errorf("%w: session %q in %s", ErrNotFound, id, sessionsDir)
	}
	l, err := o.open(id, false)
	if err != nil {
		return false, err
	}
	al, ok := l.(*archivedLog)
	if ok {
		err = al.restore()
	}
	return ok && err == nil, errors.Join(err, l.Close())
}

// watermark is the lineage and last record of session id's log, live or
// archived, read without its lease.
func (o logOpener) watermark(id string) (string, uint64, error) {
	rep, err := wal.Verify(filepath.Join(o.sessions, id, walFile))
	if err == nil {
		return rep.Lineage.String(), rep.LastSeq, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", 0, err
	}
	cur, cerr := o.arch.current(archiveDir(o.sessions), id)
	if cerr != nil || cur == nil {
		return "", 0, errors.Join(err, cerr)
	}
	return cur.e.Lineage, cur.e.Records, nil
}
