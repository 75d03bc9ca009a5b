package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// sseEvent is one dispatched server-sent event. Its slices are owned by the
// sseReader and valid until the next call to Next.
type sseEvent struct {
	Name []byte // the event field; empty when the event had none
	Data []byte // data lines joined with "\n"
}

// sseReader splits a text/event-stream body into events, following the
// WHATWG parsing rules this API needs (Gemini ends events with CRLF CRLF): LF or CRLF line ends, comment lines,
// multi-line data, a leading space after the colon, and events split
// across any number of reads. It allocates only to grow its buffers.
type sseReader struct {
	r       *bufio.Reader
	line    []byte // a line longer than r's buffer, being assembled
	name    []byte
	data    []byte
	hasData bool
	first   bool // no line read yet (a BOM may lead the stream)
	reset   bool // the previous call dispatched: clear before reading
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 4<<10), first: true} // longer lines are assembled in s.line
}

var utf8BOM = []byte("\xef\xbb\xbf")

// Next returns the next event. At the end of the body it returns io.EOF, or
// io.ErrUnexpectedEOF when the body stopped inside a line: an event cut
// there is never dispatched. An event whose last line was whole but was not
// followed by a blank line is dispatched, since nothing of it is missing.
// Other errors are the underlying reader's.
func (s *sseReader) Next() (sseEvent, error) {
	if s.reset {
		s.name, s.data, s.hasData, s.reset = s.name[:0], s.data[:0], false, false
	}
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && s.hasData {
				s.reset = true
				return sseEvent{Name: s.name, Data: s.data}, nil
			}
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if s.hasData {
				s.reset = true
				return sseEvent{Name: s.name, Data: s.data}, nil
			}
			s.name = s.name[:0] // an event with no data is not dispatched
			continue
		}
		s.field(line)
	}
}

// field applies one non-empty line.
func (s *sseReader) field(line []byte) {
	if line[0] == ':' {
		return // comment
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) { // no allocation: the compiler special-cases this conversion
	case "event":
		s.name = append(s.name[:0], value...)
	case "data":
		if s.hasData {
			s.data = append(s.data, '\n')
		}
		s.data = append(s.data, value...)
		s.hasData = true
	}
	// id and retry matter to reconnecting browsers, not to one request.
}

// readLine returns the next line without its line end. The slice is valid
// until the next read.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		chunk, err := s.r.ReadSlice('\n')
		switch {
		case err == nil:
			if len(s.line) > 0 {
				s.line = append(s.line, chunk...)
				chunk = s.line
			}
			return s.trim(chunk), nil
		case errors.Is(err, bufio.ErrBufferFull):
			s.line = append(s.line, chunk...)
		case err == io.EOF:
			if len(chunk) > 0 || len(s.line) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}

func (s *sseReader) trim(line []byte) []byte {
	line = line[:len(line)-1] // '\n'
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if s.first {
		s.first = false
		line = bytes.TrimPrefix(line, utf8BOM)
	}
	return line
}
