package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/axonhq/axon/host/walarchive"
)

// LogPlace says where a session's log resolves, for `axon wal verify`.
type LogPlace struct {
	Session   string
	Live      bool   // the live WAL, <sessions>/<id>/wal
	Container string // else the container holding its current archived copy
	// Pending names the archived copies a live log supersedes that are not
	// marked yet (a crash, or a restore, left them; the next archive pass
	// marks them).
	Pending []string
	Err     error // no log at all, or the archive could not be read
}

// Places resolves every session under sessionsDir as a read would: live
// first, then the archive.
func Places(sessionsDir string) ([]LogPlace, error) {
	ids, err := sessionIDs(sessionsDir)
	if err != nil {
		return nil, err
	}
	x := &archiveIndex{}
	dir := archiveDir(sessionsDir)
	var out []LogPlace
	for _, id := range ids {
		pl := LogPlace{Session: id}
		copies, _, cerr := x.copies(dir, id)
		_, serr := os.Stat(filepath.Join(sessionsDir, id, walFile))
		switch {
		case serr == nil:
			pl.Live = true
			for _, c := range copies {
				if !c.superseded {
					pl.Pending = append(pl.Pending, c.c.Path)
				}
			}
		case !errors.Is(serr, fs.ErrNotExist):
			pl.Err = serr
		default:
			cur, err := x.current(dir, id)
			switch {
			case err != nil:
				pl.Err = err
			case cur == nil:
				pl.Err = fmt.Errorf("no log: neither %s nor an archived copy", filepath.Join(sessionsDir, id, walFile))
			default:
				pl.Container = cur.c.Path
			}
		}
		if pl.Err == nil && cerr != nil {
			pl.Err = cerr
		}
		out = append(out, pl)
	}
	return out, nil
}

// ArchiveDir is the archive of the sessions under sessionsDir.
func ArchiveDir(sessionsDir string) string { return archiveDir(sessionsDir) }

// Containers lists the sealed containers of the archive of sessionsDir.
func Containers(sessionsDir string) ([]string, error) {
	return walarchive.List(archiveDir(sessionsDir))
}
