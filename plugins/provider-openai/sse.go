package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// sseReader splits a text/event-stream into events as the WHATWG HTML
// standard (§9.2.6) defines it: lines end in LF, CRLF or a lone CR; a line
// starting with ':' is a comment; data lines accumulate, joined by LF; a
// blank line dispatches. It reads only as far as the next event needs, so
// tokens flow as they arrive, and copes with an event split across reads
// at any byte.
//
// Unlike a browser it also dispatches an event left pending at end of input,
// so a server that omits the final blank line still delivers its last event.
type sseReader struct {
	r     *bufio.Reader
	max   int    // largest event accepted, in bytes
	long  []byte // a line longer than the bufio buffer, assembled
	phys  []byte // current physical line, being split on lone CRs
	split bool   // phys holds lines not yet returned
	data  []byte
	event []byte
	has   bool // a data line was seen since the last dispatch
	eof   bool
}

// sseEvent is one dispatched event. Its slices are valid until the next
// call to next.
type sseEvent struct {
	Type []byte // the event: field; empty means "message"
	Data []byte
}

// errEventTooLarge: an event grew past the reader's limit.
var errEventTooLarge = errors.New("server-sent event too large")

const (
	sseBufferSize = 32 << 10
	sseMaxEvent   = 16 << 20
)

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, sseBufferSize), max: sseMaxEvent}
}

// next returns the next event, or io.EOF after the last one.
func (s *sseReader) next() (sseEvent, error) {
	s.data = s.data[:0]
	s.event = s.event[:0]
	s.has = false
	for {
		line, err := s.readLine()
		if err == io.EOF {
			if s.has {
				return sseEvent{Type: s.event, Data: s.data}, nil
			}
			return sseEvent{}, io.EOF
		}
		if err != nil {
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if s.has {
				return sseEvent{Type: s.event, Data: s.data}, nil
			}
			s.event = s.event[:0] // an event without data is dropped whole
			continue
		}
		if err := s.field(line); err != nil {
			return sseEvent{}, err
		}
	}
}

// field applies one non-blank line.
func (s *sseReader) field(line []byte) error {
	if line[0] == ':' {
		return nil // comment, e.g. ": OPENROUTER PROCESSING" or a keep-alive
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if len(s.data)+len(value)+1 > s.max {
			return errEventTooLarge
		}
		if s.has {
			s.data = append(s.data, '\n')
		}
		s.data = append(s.data, value...)
		s.has = true
	case "event":
		s.event = append(s.event[:0], value...)
	}
	// id and retry steer browser reconnection, which this client never does;
	// unknown fields are ignored, as the standard says.
	return nil
}

// readLine returns the next line without its terminator.
func (s *sseReader) readLine() ([]byte, error) {
	if s.split {
		return s.splitCR(), nil
	}
	if s.eof {
		return nil, io.EOF
	}
	b, err := s.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.long = append(s.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(s.long) > s.max {
				return nil, errEventTooLarge
			}
			b, err = s.r.ReadSlice('\n')
			s.long = append(s.long, b...)
		}
		b = s.long
	}
	switch {
	case err == io.EOF:
		s.eof = true
		if len(b) == 0 {
			return nil, io.EOF
		}
	case err != nil:
		return nil, err
	}
	b = bytes.TrimSuffix(b, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if bytes.IndexByte(b, '\r') < 0 {
		return b, nil
	}
	s.phys, s.split = b, true
	return s.splitCR(), nil
}

// splitCR returns the next line of a physical line that holds lone CRs.
func (s *sseReader) splitCR() []byte {
	i := bytes.IndexByte(s.phys, '\r')
	if i < 0 {
		line := s.phys
		s.phys, s.split = nil, false
		return line
	}
	line := s.phys[:i]
	s.phys = s.phys[i+1:]
	return line
}
