package redact

import (
	"io"
)

// Reader masks the secret in a stream. Bytes that cannot begin the secret
// are passed on as soon as they arrive (a server-sent event is never held
// back); only a tail that could be the secret's start waits for the next
// read to settle it.
func (r *Redactor) Reader(rc io.ReadCloser) io.ReadCloser {
	if r.Empty() {
		return rc
	}
	return &reader{r: r, src: rc, buf: make([]byte, 32<<10)}
}

type reader struct {
	r       *Redactor
	src     io.ReadCloser
	buf     []byte
	pending []byte // read, not yet settled
	out     []byte // settled, not yet returned
	store   []byte // out's backing array, reused
	err     error  // the source's error, returned once out is drained
}

func (rd *reader) Read(p []byte) (int, error) {
	for len(rd.out) == 0 {
		if rd.err != nil {
			return 0, rd.err
		}
		got, err := rd.src.Read(rd.buf)
		rd.pending = append(rd.pending, rd.buf[:got]...)
		if err != nil {
			// Nothing more can complete a match: settle everything.
			rd.out = rd.r.replace(rd.pending)
			rd.pending = nil
			rd.err = err
			continue
		}
		masked := rd.r.replace(rd.pending) // may be rd.pending itself
		hold := rd.r.pendingPrefix(masked)
		rd.store = append(rd.store[:0], masked[:len(masked)-hold]...)
		rd.out = rd.store
		// The held tail holds no whole needle, so the next read can still
		// complete one that straddles the boundary.
		tail := masked[len(masked)-hold:]
		if len(masked) > 0 && &masked[0] == &rd.pending[0] {
			copy(rd.pending, tail) // within one array: copy is a memmove
			rd.pending = rd.pending[:hold]
		} else {
			rd.pending = append(rd.pending[:0], tail...)
		}
	}
	n := copy(p, rd.out)
	rd.out = rd.out[n:]
	return n, nil
}

func (rd *reader) Close() error { return rd.src.Close() }
