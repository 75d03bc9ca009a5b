package session

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The open-run index lets Start open only the sessions a crash may have
// left with a run to resume, instead of every session of the directory.
// It is <dir>/.open/<id>: one empty file per session with a run that is not
// finished (running or paused). The file is made durable before the
// RunStarted (or RunResumed) record is written, so a run on disk always has
// its entry, and it is removed, without a sync, once the run's RunFinished
// is durable: an entry left behind only costs Start one open, which removes
// it. <dir>/.open/.complete says the index covers every session; without
// it (a state directory of an older axon, the index deleted or damaged)
// Start opens every session, as it always did, which writes the missing
// entries, and then writes .complete.
const (
	openRunsDir   = ".open"
	indexComplete = ".complete"
)

var indexVersion = []byte("axon open-run index v1\n")

func (m *Manager) openRunsDir() string { return filepath.Join(m.opts.Dir, openRunsDir) }

// markOpen records, durably, that session id has a run that is not
// finished. Actor goroutine only (or the lease holder).
func (m *Manager) markOpen(id string) error {
	dir := m.openRunsDir()
	path := filepath.Join(dir, id)
	if _, err := os.Lstat(path); err == nil {
		return nil // durable: a failed sync below removes it
	}
	if err := makeDirs(m.opts.Dir, dir); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("session: open-run index: %w", err)
	}
	err = f.Close()
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("session: open-run index: %w", err)
	}
	return nil
}

// markClosed drops session id from the index once it has no open run. Not
// synced: an entry a crash brings back is removed by the next open.
func (m *Manager) markClosed(id string) {
	err := os.Remove(filepath.Join(m.openRunsDir(), id))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		m.log.Warn("open-run index entry not removed (the next start opens the session once more)", "session", id, "error", err)
	}
}

// openRuns lists the index: the sessions with a run that may be open, and
// whether the index is complete (false: Start must open every session).
func (m *Manager) openRuns() ([]string, bool) {
	dir := m.openRunsDir()
	v, err := os.ReadFile(filepath.Join(dir, indexComplete))
	if err != nil || !bytes.Equal(v, indexVersion) {
		return nil, false
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	var ids []string
	for _, e := range ents {
		if validID(e.Name()) && e.Type().IsRegular() {
			ids = append(ids, e.Name())
		}
	}
	return ids, true
}

// completeIndex writes .complete, durably, after a scan of every session
// wrote the entries of those with an open run.
func (m *Manager) completeIndex() error {
	dir := m.openRunsDir()
	if err := makeDirs(m.opts.Dir, dir); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, indexComplete), indexVersion, true)
}

// repairIndex removes what stands where the index goes when it is not a
// directory, before a rebuild writes the entries again.
func (m *Manager) repairIndex() {
	dir := m.openRunsDir()
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		if err := os.Remove(dir); err != nil {
			m.log.Warn("damaged open-run index not removed", "path", dir, "error", err)
		}
	}
}
