package walarchive

import (
	"bytes"
	"os"

	"github.com/axonhq/axon/host/wal"
)

// EntryReport is the verdict on one archived log.
type EntryReport struct {
	Entry Entry
	Err   error // nil: the bytes match the digest and verify as a log with the manifest's lineage and records
}

// Report is the verdict on a container: Err for the container itself
// (name, manifest, layout), else one EntryReport per manifest entry.
type Report struct {
	Path    string
	Err     error
	Entries []EntryReport
}

// OK reports whether the container and every entry verified.
func (r Report) OK() bool {
	if r.Err != nil {
		return false
	}
	for _, e := range r.Entries {
		if e.Err != nil {
			return false
		}
	}
	return true
}

// Verify reads the whole container at path: its manifest against its
// name, then every log against its manifest entry (size, digest), each
// checked as a log as wal.Verify checks a live one, with the lineage and
// record count the manifest says and no torn tail; nothing else may
// follow.
func Verify(path string) Report {
	rep := Report{Path: path}
	f, err := os.Open(path)
	if err != nil {
		rep.Err = err
		return rep
	}
	defer f.Close()
	c, tr, err := readManifest(f, path)
	if err != nil {
		rep.Err = err
		return rep
	}
	for _, want := range c.Manifest.Entries {
		h, err := tr.Next()
		if err != nil {
			rep.Err = damaged(path, "entry %s%s missing: %v", want.Session, logExt, err)
			return rep
		}
		if h.Name != want.Session+logExt {
			rep.Err = damaged(path, "entry %q where the manifest puts %s%s", h.Name, want.Session, logExt)
			return rep
		}
		b, err := readEntry(tr, h, path, want)
		if err == nil {
			_, err = checkLog(b, path, want)
		}
		rep.Entries = append(rep.Entries, EntryReport{Entry: want, Err: err})
	}
	if h, err := tr.Next(); err == nil {
		rep.Err = damaged(path, "entry %q is not in the manifest", h.Name)
	}
	return rep
}

// checkLog verifies an archived log's bytes as a log and returns its image.
func checkLog(b []byte, path string, want Entry) (*wal.Image, error) {
	im, err := wal.ReadImage(bytes.NewReader(b), int64(len(b)), path+":"+want.Session+logExt)
	if err != nil {
		return nil, err
	}
	r := im.Report()
	switch {
	case r.Lineage.String() != want.Lineage:
		return nil, damaged(path, "session %s: log lineage %s, the manifest says %s", want.Session, r.Lineage, want.Lineage)
	case r.LastSeq != want.Records:
		return nil, damaged(path, "session %s: %d records, the manifest says %d", want.Session, r.LastSeq, want.Records)
	case r.End != r.Size:
		return nil, damaged(path, "session %s: %d torn bytes after the last whole batch", want.Session, r.Size-r.End)
	}
	return im, nil
}

// Log reads session's archived log, checked against its digest and as a
// log (lineage and records as the manifest says, no torn tail): its bytes,
// and an image of them for replay.
func (c *Container) Log(session string) ([]byte, *wal.Image, error) {
	b, err := c.Read(session)
	if err != nil {
		return nil, nil, err
	}
	e, _ := c.Entry(session)
	im, err := checkLog(b, c.Path, e)
	if err != nil {
		return nil, nil, err
	}
	return b, im, nil
}
