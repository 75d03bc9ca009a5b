package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Files of one session, in <dir>/<id>/.
const (
	metaFile       = "meta.json"       // the key; written once, durably
	walFile        = "wal"             // the log (host/wal), plus wal.lock
	projectionFile = "projection.json" // rebuildable snapshot of the run index
)

// meta names the session a directory holds.
type meta struct {
	Key
	CreatedAt time.Time `json:"created_at"`
}

// sessionDir is where session id lives.
func (m *Manager) sessionDir(id string) string { return filepath.Join(m.opts.Dir, id) }

// exists reports whether session id has been created (its meta is durable).
func (m *Manager) exists(id string) bool {
	_, err := os.Stat(filepath.Join(m.sessionDir(id), metaFile))
	return err == nil
}

// makeDirs creates the sessions directory and dir in it, each made durable
// by syncing its parent.
func makeDirs(root, dir string) error {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return fmt.Errorf("session: create %s: %w", root, err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		return fmt.Errorf("session: create %s: %w", dir, err)
	}
	return syncDir(root)
}

// writeMeta records the key in dir, durably, unless it is there already.
// The caller holds the session's writer lease.
func writeMeta(dir string, md meta) error {
	path := filepath.Join(dir, metaFile)
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	b, err := json.Marshal(md)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, b, true)
}

func readMeta(dir string) (meta, error) {
	var md meta
	b, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		return md, err
	}
	if err := json.Unmarshal(b, &md); err != nil {
		return md, fmt.Errorf("session: %s: %w", filepath.Join(dir, metaFile), err)
	}
	return md, nil
}

// writeFileAtomic replaces path with b through a temporary file and a
// rename. With durable, the file and the directory are synced, so the file
// survives a power loss whole or not at all; without, a crash may lose the
// new content but never leaves a torn file.
func writeFileAtomic(path string, b []byte, durable bool) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("session: write %s: %w", path, err)
	}
	_, err = f.Write(b)
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("session: write %s: %w", path, err)
	}
	if durable {
		return syncDir(filepath.Dir(path))
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("session: open directory %s: %w", dir, err)
	}
	serr := d.Sync()
	cerr := d.Close()
	if serr != nil {
		return fmt.Errorf("session: sync directory %s: %w", dir, serr)
	}
	return cerr
}

// sessionIDs lists the session directories under root that have a meta.
func sessionIDs(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session: list %s: %w", root, err)
	}
	var ids []string
	for _, e := range ents {
		if !e.IsDir() || !validID(e.Name()) {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, e.Name(), metaFile)); err == nil {
			ids = append(ids, e.Name())
		}
	}
	return ids, nil
}
