package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// DefaultMaxEventSize is the MaxEventSize NewReader sets.
const DefaultMaxEventSize = 16 << 20

// bufferSize is the read buffer; longer lines are assembled beside it.
const bufferSize = 16 << 10

// ErrEventTooLarge reports an event (or a single line) larger than the
// reader's MaxEventSize.
var ErrEventTooLarge = errors.New("sse: event too large")

// Event is one dispatched event. Its slices are owned by the Reader and
// valid until the next call to Next.
type Event struct {
	Type []byte // the event field; empty means "message"
	Data []byte // the data lines, joined by LF
	ID   []byte // the last id field seen so far (it persists across events)
}

// Reader splits a text/event-stream into events. Set its exported fields
// before the first call to Next, as with encoding/csv's Reader.
type Reader struct {
	// MaxEventSize caps the data of one event, and any one line, in bytes;
	// a larger one ends reading with ErrEventTooLarge. Zero or less means
	// no limit.
	MaxEventSize int
	// LenientEnd treats a last line that the input cut before its line end
	// as whole, so the event pending there is dispatched. Some
	// OpenAI-compatible servers end on "data: [DONE]" with no newline.
	// When false, Next reports io.ErrUnexpectedEOF there and the cut event
	// is never dispatched: a decoder cannot tell a cut JSON value from a
	// whole one.
	LenientEnd bool

	r       *bufio.Reader
	long    []byte // a line longer than r's buffer, assembled
	typ     []byte
	data    []byte
	id      []byte
	hasData bool // a data line was seen since the last dispatch
	reset   bool // the previous call dispatched: clear before reading
	first   bool // no line read yet: a BOM may lead the stream
	skipLF  bool // the last line ended in CR: an LF next belongs to it
	noLF    int  // buffered bytes known to hold no LF
	err     error
}

// NewReader returns a Reader of r with MaxEventSize DefaultMaxEventSize.
func NewReader(r io.Reader) *Reader {
	return &Reader{MaxEventSize: DefaultMaxEventSize, r: bufio.NewReaderSize(r, bufferSize), first: true}
}

// Next returns the next event. After the last one it returns io.EOF; an
// event whose last line was whole but not followed by a blank line is
// dispatched first, since nothing of it is missing. When the input stops
// inside a line it returns io.ErrUnexpectedEOF (unless LenientEnd is set).
// Other errors are ErrEventTooLarge or the underlying reader's; every error
// is returned again by later calls.
func (s *Reader) Next() (Event, error) {
	if s.reset {
		s.typ, s.data, s.hasData, s.reset = s.typ[:0], s.data[:0], false, false
	}
	for {
		line, err := s.readLine()
		if err == io.EOF && s.hasData {
			return s.dispatch(), nil
		}
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			if s.hasData {
				return s.dispatch(), nil
			}
			s.typ = s.typ[:0] // an event with no data is not dispatched
			continue
		}
		if err := s.field(line); err != nil {
			s.err = err
			return Event{}, err
		}
	}
}

func (s *Reader) dispatch() Event {
	s.reset = true
	return Event{Type: s.typ, Data: s.data, ID: s.id}
}

// field applies one non-blank line.
func (s *Reader) field(line []byte) error {
	if line[0] == ':' {
		return nil // a comment or keep-alive
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) { // no allocation: the compiler special-cases this conversion
	case "data":
		if s.hasData {
			s.data = append(s.data, '\n')
		}
		if err := s.checkSize(len(s.data) + len(value)); err != nil {
			return err
		}
		s.data = append(s.data, value...)
		s.hasData = true
	case "event":
		s.typ = append(s.typ[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 { // the standard ignores an id holding NUL
			s.id = append(s.id[:0], value...)
		}
	}
	// retry steers browser reconnection, which this reader never does;
	// unknown fields are ignored, as the standard says.
	return nil
}
