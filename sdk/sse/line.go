package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// readLine returns the next line without its line end. The slice is valid
// until the next read. It returns as soon as a line end arrives, CR
// included, so it never waits for a byte only to see whether an LF follows.
func (s *Reader) readLine() ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	line, err := s.scanLine()
	if err != nil {
		s.err = err
		return nil, err
	}
	if s.first {
		s.first = false
		line = bytes.TrimPrefix(line, utf8BOM)
	}
	return line, nil
}

var utf8BOM = []byte("\xef\xbb\xbf")

func (s *Reader) scanLine() ([]byte, error) {
	s.long = s.long[:0]
	scanned := 0 // bytes of the buffer known to hold no line end
	for {
		buf, _ := s.r.Peek(s.r.Buffered())
		if s.skipLF && len(buf) > 0 {
			s.skipLF = false
			if buf[0] == '\n' {
				buf = buf[1:]
				s.discard(1)
			}
		}
		if i := s.lineEnd(buf, scanned); i >= 0 {
			line, n := buf[:i], i+1
			if buf[i] == '\r' {
				if i+1 < len(buf) {
					if buf[i+1] == '\n' {
						n++
					}
				} else {
					s.skipLF = true
				}
			}
			if len(s.long) > 0 {
				s.long = append(s.long, line...)
				line = s.long
			}
			if err := s.checkSize(len(line)); err != nil {
				return nil, err
			}
			s.discard(n) // line stays valid: Discard does not refill
			return line, nil
		}
		scanned = len(buf)
		if len(buf) == s.r.Size() { // a line longer than the buffer
			s.long = append(s.long, buf...)
			if err := s.checkSize(len(s.long)); err != nil {
				return nil, err
			}
			s.discard(len(buf))
			scanned = 0
		}
		if _, err := s.r.Peek(scanned + 1); err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return s.end(err)
		}
	}
}

// lineEnd is the index in buf of the first CR or LF at or after from, or
// -1. It remembers how far buf is known to hold no LF, so a stream whose
// lines end in lone CRs is not scanned again for an LF at every line.
func (s *Reader) lineEnd(buf []byte, from int) int {
	lf := -1
	if start := max(from, s.noLF); start < len(buf) {
		if i := bytes.IndexByte(buf[start:], '\n'); i >= 0 {
			lf = start + i
		}
	}
	if lf < 0 {
		s.noLF = len(buf)
		if i := bytes.IndexByte(buf[from:], '\r'); i >= 0 {
			return from + i
		}
		return -1
	}
	if i := bytes.IndexByte(buf[from:lf], '\r'); i >= 0 {
		return from + i
	}
	return lf
}

// discard consumes n buffered bytes.
func (s *Reader) discard(n int) {
	_, _ = s.r.Discard(n)
	s.noLF = max(0, s.noLF-n)
}

// end handles the input's end (or failure) with no line end in sight.
func (s *Reader) end(err error) ([]byte, error) {
	if err != io.EOF {
		return nil, err
	}
	rest, _ := s.r.Peek(s.r.Buffered())
	if len(rest) == 0 && len(s.long) == 0 {
		return nil, io.EOF
	}
	if !s.LenientEnd {
		return nil, io.ErrUnexpectedEOF
	}
	line := append(s.long, rest...)
	s.long = line
	s.discard(len(rest))
	if err := s.checkSize(len(line)); err != nil {
		return nil, err
	}
	s.err = io.EOF // the input is done: the next read reports it
	return line, nil
}

func (s *Reader) checkSize(n int) error {
	if s.MaxEventSize > 0 && n > s.MaxEventSize {
		return ErrEventTooLarge
	}
	return nil
}
