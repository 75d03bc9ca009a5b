package session

import (
	"errors"
	"path/filepath"

	"github.com/axonhq/axon/host/wal"
)

// List reads the projections of every session under dir without running
// anything, for `axon sessions`. Each session is rebuilt from its WAL,
// taking the writer lease for the moment it reads (which, like any open,
// truncates a torn tail). When another process holds the lease, its stored
// snapshot is shown, marked held elsewhere, and stale when its watermark
// (lineage, last seq) is behind the WAL. A session that cannot be read is
// listed with its error. Sessions come most recently active first.
func List(dir string) ([]SessionInfo, error) {
	ids, err := sessionIDs(dir)
	if err != nil {
		return nil, err
	}
	var p projections
	o := logOpener{sessions: dir, arch: &archiveIndex{}}
	for _, id := range ids {
		p.put(listOne(o, filepath.Join(dir, id), id))
	}
	var out []SessionInfo
	for _, s := range p.list() {
		out = append(out, s.summary())
	}
	return out, nil
}

func listOne(o logOpener, dir, id string) *SessionInfo {
	md, err := readMeta(dir)
	if err != nil {
		return &SessionInfo{ID: id, Runs: []RunInfo{}, Error: err.Error()}
	}
	broken := func(err error) *SessionInfo {
		return &SessionInfo{ID: id, Key: md.Key, CreatedAt: md.CreatedAt, Runs: []RunInfo{}, Error: err.Error()}
	}
	w, err := o.open(id, false)
	if errors.Is(err, wal.ErrLocked) {
		snap, serr := readSnapshot(dir)
		if serr != nil {
			info := broken(err)
			info.HeldElsewhere = true
			return info
		}
		lineage, last, werr := o.watermark(id)
		snap.HeldElsewhere = true
		snap.Stale = werr != nil || snap.Lineage != lineage || snap.AppliedSeq != last
		return snap
	}
	if err != nil {
		return broken(err)
	}
	defer w.Close()
	st, err := replayState(w)
	if err != nil {
		return broken(err)
	}
	info := project(id, md, w.Lineage().String(), st)
	writeSnapshot(dir, info) // best effort: read only while another process holds the session
	return info
}
