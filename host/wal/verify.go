package wal

import (
	"fmt"
	"os"
)

// Report describes a log as Open would find it.
type Report struct {
	Lineage LineageID
	LastSeq uint64 // sequence number of the last whole record; 0 when none
	Size    int64  // file size
	End     int64  // end of the last whole batch; Open truncates Size-End torn bytes
}

// Verify checks the log at path without the writer lease and without
// changing it: it returns a *CorruptError (ErrCorrupt) where Open would
// refuse, and otherwise reports what Open would keep. Run against a log
// with a live writer, an Append in flight shows as a torn tail.
func Verify(path string) (Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return Report{}, fmt.Errorf("wal: verify: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Report{}, fmt.Errorf("wal: verify: %w", err)
	}
	l, rec, err := inspect(f, st.Size(), path)
	return Report{Lineage: l, LastSeq: rec.last, Size: st.Size(), End: rec.end}, err
}
