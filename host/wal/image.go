package wal

import "io"

// Image is a log read from bytes that are not an open log, such as a copy
// kept in an archive: checked as Open would check the file, read only,
// never changed. It holds no lease.
type Image struct {
	r       io.ReaderAt
	name    string
	lineage LineageID
	rec     recovery
}

// ReadImage checks the log image of size bytes at r, naming it name in
// errors. It fails where Verify would (a *CorruptError, ErrVersion); a torn
// tail is reported (Report.End < Report.Size) and left out of Replay.
func ReadImage(r io.ReaderAt, size int64, name string) (*Image, error) {
	l, rec, err := inspect(r, size, name)
	if err != nil {
		return nil, err
	}
	return &Image{r: r, name: name, lineage: l, rec: rec}, nil
}

// Report describes the image as Verify describes a file.
func (im *Image) Report() Report {
	return Report{Lineage: im.lineage, LastSeq: im.rec.last, Size: im.rec.size, End: im.rec.end}
}

// Lineage is the identity of the log the image is a copy of.
func (im *Image) Lineage() LineageID { return im.lineage }

// LastSeq is the sequence number of the image's last whole record.
func (im *Image) LastSeq() uint64 { return im.rec.last }

// Replay calls fn with every record whose sequence number is at least from,
// as WAL.Replay does.
func (im *Image) Replay(from uint64, fn func(seq uint64, payload []byte) error) error {
	return replayFrames(im.r, im.name, im.lineage.seed(), im.rec.end, im.rec.last, im.rec.marks, from, fn)
}
