package api

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"
)

// HTTPServer returns the http.Server that serves h (the handler New
// returns) with the front door's connection limits: DefaultReadHeaderTimeout,
// DefaultIdleTimeout and DefaultMaxHeaderBytes.
//
// It sets no WriteTimeout on purpose: that deadline covers the whole
// response and would cut legitimate long streams. Nor ReadTimeout: the
// handler puts a deadline on reading each request body itself
// (DefaultBodyTimeout), so it can answer a body too slow with a 408 in the
// client's format, and lifts it once the body is in.
func HTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: DefaultReadHeaderTimeout,
		IdleTimeout:       DefaultIdleTimeout,
		MaxHeaderBytes:    DefaultMaxHeaderBytes,
	}
}

// admission bounds the generation requests in flight, over all chains and
// per chain. It never queues: a request over a bound is refused at once, so
// the ones admitted keep their latency.
type admission struct {
	total, perChain int

	mu     sync.Mutex
	n      int
	chains map[string]int
}

func newAdmission(total, perChain int) *admission {
	return &admission{total: total, perChain: perChain, chains: map[string]int{}}
}

// enter takes a slot of the total, or reports that none is free.
func (a *admission) enter() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n >= a.total {
		return false
	}
	a.n++
	return true
}

func (a *admission) leave() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n--
}

// enterChain takes a slot of chain's, or reports that none is free.
func (a *admission) enterChain(chain string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.chains[chain] >= a.perChain {
		return false
	}
	a.chains[chain]++
	return true
}

func (a *admission) leaveChain(chain string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.chains[chain]--; a.chains[chain] <= 0 {
		delete(a.chains, chain) // the map holds only the chains busy now
	}
}

// overloaded is the refusal of a request over an admission bound.
func overloaded(message string, retry time.Duration) *wireError {
	return &wireError{kind: kindUnavailable, code: "overloaded", message: message + "; retry later", retryAfter: retry}
}

// shuttingDown is the end of a response the server could not finish, or the
// refusal of a new one, while it shuts down.
func shuttingDown(started bool, retry time.Duration) *wireError {
	msg := "axon is shutting down; retry the request"
	if started {
		msg = "axon is shutting down: the response was cut off before its end; retry the request"
	}
	return &wireError{kind: kindUnavailable, code: "shutting_down", message: msg, retryAfter: retry}
}

// readBody reads the request body within the body deadline, refusing one
// over the limit with 413 and one too slow with 408.
func (s *server) readBody(w *recorder, r *http.Request) ([]byte, *wireError) {
	tooLarge := &wireError{kind: kindTooLarge, code: "request_too_large",
		message: fmt.Sprintf("the request body is larger than the limit of %d bytes", s.cfg.maxBody)}
	if r.ContentLength > s.cfg.maxBody {
		return nil, tooLarge
	}
	// A deadline on the body alone, in wall time, lifted once the body is
	// read: the response may then stream for as long as it needs. It stays
	// on after a failure, so net/http gives up the rest of the body at once
	// and closes the connection. Writers that are no connection (tests,
	// wrappers) do not support deadlines.
	deadline := w.rc.SetReadDeadline(time.Now().Add(s.cfg.bodyTimeout)) == nil
	// The server's own writer, not the recorder: MaxBytesReader tells it to
	// close the connection after a body over the limit.
	body, err := readUpTo(http.MaxBytesReader(w.ResponseWriter, r.Body, s.cfg.maxBody), r.ContentLength)
	if err == nil {
		if deadline {
			_ = w.rc.SetReadDeadline(time.Time{})
		}
		return body, nil
	}
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &mbe):
		return nil, tooLarge
	case errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return nil, &wireError{kind: kindTimeout, code: "request_timeout",
			message: fmt.Sprintf("the request body did not arrive within %s", s.cfg.bodyTimeout)}
	}
	return nil, &wireError{kind: kindInvalid, code: "invalid_body", message: "reading the request body: " + err.Error()}
}

// firstRead is the buffer a body starts in. A body of known length grows
// from there in steps of eightfold, straight to its length at the last one,
// so an honest large body is copied at most about a seventh of its size
// over, and a client that announces a large body and sends little of it
// holds at most eight times what it sent.
const firstRead = 64 << 10

// readUpTo reads r to its end; length is the announced length, -1 if none.
func readUpTo(r io.Reader, length int64) ([]byte, error) {
	size := int64(firstRead)
	if length >= 0 {
		size = min(size, length)
	}
	buf := make([]byte, 0, size+1) // +1: room to see EOF without growing
	for {
		if len(buf) == cap(buf) {
			next := int64(2 * cap(buf)) // no length known: double
			if length > int64(len(buf)) {
				next = min(8*int64(cap(buf)), length+1)
			}
			buf = slices.Grow(buf, int(next)-len(buf))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return nil, err
		}
	}
}
