package redact

import (
	"io"
)

// Reader masks the secret in a stream. Bytes that cannot begin the secret
// are passed on as soon as they arrive (a server-sent event is never held
// back); only a tail that could be the secret's start waits for the next
// read to settle it.
//
// It reads into the caller's buffer and settles the bytes there, so a
// stream with nothing to mask costs no buffer and no copy of its own; only
// a caller's buffer shorter than the longest form of the secret, or a
// masked read, goes through one.
func (r *Redactor) Reader(rc io.ReadCloser) io.ReadCloser {
	if r.Empty() {
		return rc
	}
	return &reader{r: r, src: rc}
}

// smallBuffer is the reader's own buffer, for callers whose buffer cannot
// hold a held tail and a byte more; at least twice the longest needle.
const smallBuffer = 4 << 10

type reader struct {
	r    *Redactor
	src  io.ReadCloser
	held []byte // read, not yet settled: it could begin the secret
	out  []byte // settled, not yet returned (in buf, or in a masked copy)
	buf  []byte // the reader's own read buffer, for a short p
	err  error  // the source's error, returned once out is drained
}

func (rd *reader) Read(p []byte) (int, error) {
	for {
		if len(rd.out) > 0 {
			n := copy(p, rd.out)
			rd.out = rd.out[n:]
			return n, nil
		}
		if rd.err != nil {
			return 0, rd.err
		}
		// The held tail goes first, then what the source gives; the held
		// tail is shorter than the longest needle, so a buffer that holds
		// it and one byte more always makes progress.
		b, direct := p, len(p) > rd.r.longest
		if !direct {
			if rd.buf == nil {
				rd.buf = make([]byte, max(smallBuffer, 2*rd.r.longest))
			}
			b = rd.buf
		}
		h := copy(b, rd.held)
		got, err := rd.src.Read(b[h:])
		b = b[:h+got]
		masked := rd.r.replace(b) // b itself when nothing was masked
		if direct && len(b) > 0 && &masked[0] != &b[0] {
			clear(b) // the caller's buffer held the secret in the clear
		}
		hold := 0
		if err != nil {
			// Nothing more can complete a match: settle everything.
			rd.err = err
		} else {
			hold = rd.r.pendingPrefix(masked)
		}
		settled := masked[:len(masked)-hold]
		// The held tail holds no whole needle, so the next read can still
		// complete one that straddles the boundary.
		rd.held = append(rd.held[:0], masked[len(masked)-hold:]...)
		if len(settled) == 0 {
			continue
		}
		if direct && &settled[0] == &p[0] {
			return len(settled), nil // settled in place
		}
		// buf is read into again only once out is drained.
		rd.out = settled
	}
}

func (rd *reader) Close() error { return rd.src.Close() }
