package session

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Cursor is a position on a session's control lane: the WAL sequence number
// of a record and the index of one event among those the record expands to.
// A subscriber that saw the event at a cursor resumes "after" it and sees
// every later event exactly once.
//
// Text form: "SEQ:SUB" names one event; "SEQ" means after every event of
// record SEQ, so "0" is the start of the session.
type Cursor struct {
	Seq uint64
	Sub uint32
}

// wholeRecord is the Sub of a cursor that stands after all of its record.
const wholeRecord = math.MaxUint32

// After returns the cursor after every event of record seq.
func After(seq uint64) Cursor { return Cursor{Seq: seq, Sub: wholeRecord} }

// ParseCursor reads the text form; "" is the start of the session.
func ParseCursor(s string) (Cursor, error) {
	if s == "" {
		return After(0), nil
	}
	seqText, subText, hasSub := strings.Cut(s, ":")
	seq, err := strconv.ParseUint(seqText, 10, 64)
	if err != nil {
		return Cursor{}, invalidf("cursor", "%q is not SEQ or SEQ:SUB", s)
	}
	if !hasSub {
		return After(seq), nil
	}
	sub, err := strconv.ParseUint(subText, 10, 32)
	if err != nil || sub == wholeRecord {
		return Cursor{}, invalidf("cursor", "%q is not SEQ or SEQ:SUB", s)
	}
	return Cursor{Seq: seq, Sub: uint32(sub)}, nil
}

func (c Cursor) String() string {
	if c.Sub == wholeRecord {
		return strconv.FormatUint(c.Seq, 10)
	}
	return fmt.Sprintf("%d:%d", c.Seq, c.Sub)
}

// Before reports whether c comes before the event at (seq, sub).
func (c Cursor) Before(seq uint64, sub uint32) bool {
	return c.Seq < seq || (c.Seq == seq && c.Sub < sub)
}

// MarshalText and UnmarshalText use the text form, in JSON too.
func (c Cursor) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

func (c *Cursor) UnmarshalText(b []byte) error {
	v, err := ParseCursor(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}
