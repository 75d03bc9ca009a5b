package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/axonhq/axon/host/walarchive"
)

// Archived logs live in <state_dir>/wal-archive, beside the sessions
// directory, in sealed containers (host/walarchive). A container never
// changes, so which archived copy of a session counts is kept beside it:
// <container>.superseded/<id>, an empty file, says the container's copy of
// session id is no longer the session's log (it was restored, or a crash
// left the live log in place). A session resolves to its live WAL when
// there is one, else to its one archived copy not superseded.
const (
	archiveDirName = "wal-archive"
	supersededExt  = ".superseded"
	restoreTmp     = "wal.restore" // a restore in progress, in the session's directory
)

// archiveDir is the archive of the sessions under sessionsDir.
func archiveDir(sessionsDir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(sessionsDir)), archiveDirName)
}

// archivedCopy is one container's copy of a session's log.
type archivedCopy struct {
	c          *walarchive.Container
	e          walarchive.Entry
	superseded bool
}

// archiveIndex caches the manifests of an archive's containers (a sealed
// container never changes, and its name is its manifest's digest, so a
// cached manifest never goes stale); which copies are superseded is read
// from the disk on every lookup. Safe for concurrent use.
type archiveIndex struct {
	mu   sync.Mutex
	byCN map[string]*walarchive.Container
}

// containers reads every container of dir; those whose manifest cannot be
// read are returned as errors, not skipped silently.
func (x *archiveIndex) containers(dir string) ([]*walarchive.Container, []error, error) {
	paths, err := walarchive.List(dir)
	if err != nil {
		return nil, nil, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.byCN == nil {
		x.byCN = map[string]*walarchive.Container{}
	}
	var out []*walarchive.Container
	var bad []error
	for _, p := range paths {
		c := x.byCN[p]
		if c == nil {
			if c, err = walarchive.Open(p); err != nil {
				bad = append(bad, err)
				continue
			}
			x.byCN[p] = c
		}
		out = append(out, c)
	}
	return out, bad, nil
}

// copies lists every archived copy of session id.
func (x *archiveIndex) copies(dir, id string) ([]archivedCopy, []error, error) {
	cs, bad, err := x.containers(dir)
	if err != nil {
		return nil, nil, err
	}
	var out []archivedCopy
	for _, c := range cs {
		e, ok := c.Entry(id)
		if !ok {
			continue
		}
		sup, err := isSuperseded(c.Path, id)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, archivedCopy{c: c, e: e, superseded: sup})
	}
	return out, bad, nil
}

// current is session id's archived log: its copy not superseded, nil when
// it has none. When a container cannot be read and holds no readable copy
// of the session, that is an error, never "not archived".
func (x *archiveIndex) current(dir, id string) (*archivedCopy, error) {
	copies, bad, err := x.copies(dir, id)
	if err != nil {
		return nil, err
	}
	var cur *archivedCopy
	for i := range copies {
		c := &copies[i]
		if c.superseded {
			continue
		}
		// Archive passes leave at most one; should a crash ever leave more,
		// the longest log of the lineage is the later one.
		if cur == nil || c.e.Records > cur.e.Records {
			cur = c
		}
	}
	if cur == nil && len(bad) > 0 {
		return nil, fmt.Errorf("session %s has no live log and the archive cannot be read: %w", id, errors.Join(bad...))
	}
	return cur, nil
}

func tombstone(container, id string) string {
	return filepath.Join(container+supersededExt, id)
}

func isSuperseded(container, id string) (bool, error) {
	_, err := os.Lstat(tombstone(container, id))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("session: archive: %w", err)
}

// supersede marks container's copy of session id as no longer its log,
// durably.
func supersede(container, id string) error {
	dir := container + supersededExt
	if _, err := os.Stat(dir); err != nil {
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("session: archive: %w", err)
		}
		if err := syncDir(filepath.Dir(container)); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, id), os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("session: archive: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("session: archive: %w", err)
	}
	return syncDir(dir)
}
