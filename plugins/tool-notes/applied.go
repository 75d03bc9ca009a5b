package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/go-hclog"
)

// appliedFile is the idempotency index inside dir. Its leading dot keeps it
// out of reach of note names.
const appliedFile = ".applied"

// applied is one append done under an idempotency key: enough to tell
// whether its entry reached the note file and to repeat its result.
type applied struct {
	Key    string `json:"key"`
	Note   string `json:"note"`
	Offset int64  `json:"offset"` // where the entry starts in the note file
	Size   int    `json:"size"`
	Sum    string `json:"sum"` // sha256 of the entry, hex
	At     string `json:"at"`  // the entry's timestamp
}

// appliedIndex remembers, across restarts, the appends made under each
// idempotency key, one JSON line per append in dir/.applied. It is not safe
// for concurrent use: notes serialises appends.
//
// The record is written and fsynced before the entry, so a crash between
// the two leaves a record whose entry is missing: present() sees that, and
// the retry appends. A crash after both leaves a record whose entry is
// present, and the retry returns the earlier result. This is a second guard
// only; the host's write-ahead log never re-sends an interrupted call.
type appliedIndex struct {
	f      *os.File
	keys   map[string]applied
	broken error // set by a failed write or fsync: never retried
}

func openApplied(root *os.Root, log hclog.Logger) (*appliedIndex, error) {
	f, err := root.OpenFile(appliedFile, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open idempotency index: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read idempotency index: %w", err)
	}
	// A record cut by a crash is dropped, so the next one starts on a line
	// of its own. Its append was never done: the record precedes the entry.
	if end := bytes.LastIndexByte(data, '\n') + 1; end < len(data) {
		log.Warn("dropping a torn record at the end of the idempotency index", "bytes", len(data)-end)
		if err := f.Truncate(int64(end)); err != nil {
			f.Close()
			return nil, fmt.Errorf("truncate torn idempotency record: %w", err)
		}
		data = data[:end]
	}
	idx := &appliedIndex{f: f, keys: map[string]applied{}}
	for n, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var rec applied
		if err := json.Unmarshal(line, &rec); err != nil || rec.Key == "" {
			log.Warn("skipping an unreadable idempotency record", "line", n+1)
			continue
		}
		idx.keys[rec.Key] = rec
	}
	return idx, nil
}

// lookup finds the append made under key; the empty key (a call without
// one) is never found.
func (x *appliedIndex) lookup(key string) (applied, bool) {
	if key == "" {
		return applied{}, false
	}
	rec, ok := x.keys[key]
	return rec, ok
}

// record makes rec durable before its entry is written.
func (x *appliedIndex) record(rec applied) error {
	if x.broken != nil {
		return x.broken
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode idempotency record: %w", err)
	}
	if _, err := x.f.Write(append(line, '\n')); err != nil {
		x.broken = fmt.Errorf("idempotency index unusable after a failed write: %w", err)
		return x.broken
	}
	if err := x.f.Sync(); err != nil {
		x.broken = fmt.Errorf("idempotency index unusable after a failed fsync: %w", err)
		return x.broken
	}
	x.keys[rec.Key] = rec
	return nil
}

func (x *appliedIndex) Close() error { return x.f.Close() }

// present reports whether rec's entry is in its note file where the record
// says, byte for byte.
func present(root *os.Root, rec applied) bool {
	f, err := root.Open(rec.Note + noteExt)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, rec.Size)
	if _, err := f.ReadAt(buf, rec.Offset); err != nil {
		return false
	}
	return checksum(buf) == rec.Sum
}

func checksum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
