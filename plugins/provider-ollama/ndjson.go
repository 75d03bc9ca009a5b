package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxLine bounds one NDJSON line. Stream lines are small (one delta, or a
// few complete tool calls); the bound stops a server that never sends a
// newline from growing the buffer without limit.
const maxLine = 8 << 20

// errLineTooLong reports a line beyond maxLine.
var errLineTooLong = errors.New("ndjson line too long")

// lineReader splits an NDJSON body into lines, whatever the read sizes.
// Blank lines are skipped and a CR before the LF is dropped. It allocates
// only to grow its buffer for a line longer than the bufio buffer.
type lineReader struct {
	r    *bufio.Reader
	long []byte // a line longer than r's buffer, being assembled
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 4<<10)}
}

// Next returns the next non-blank line, valid until the next call, and
// io.EOF at the end of the body. A last line without its newline is
// returned as it is: if the body was cut inside it, it is not a whole JSON
// object and its decoder says so. Other errors are the underlying reader's.
func (l *lineReader) Next() ([]byte, error) {
	for {
		line, err := l.readLine()
		if err != nil {
			return nil, err
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return line, nil
		}
	}
}

func (l *lineReader) readLine() ([]byte, error) {
	l.long = l.long[:0]
	for {
		frag, err := l.r.ReadSlice('\n')
		switch {
		case err == nil:
			if len(l.long) == 0 {
				return frag, nil
			}
			return append(l.long, frag...), nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(l.long)+len(frag) > maxLine {
				return nil, errLineTooLong
			}
			l.long = append(l.long, frag...)
		case errors.Is(err, io.EOF):
			if len(l.long) == 0 && len(frag) == 0 {
				return nil, io.EOF
			}
			return append(l.long, frag...), nil
		default:
			return nil, err
		}
	}
}
