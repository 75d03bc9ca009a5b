// Package logbuf is a log sink for the host's tests: it keeps everything
// written to it, safe for many writers, and lets a test wait for a line to
// appear instead of polling.
package logbuf

import (
	"bytes"
	"strings"
	"sync"
	"time"
)

// Buffer collects log output.
type Buffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.b.Write(p)
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	return n, err
}

func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// WaitFor blocks until the output contains s, woken by each write, and
// reports false if that has not happened within timeout (a guard against
// a hang, not a timing claim).
func (l *Buffer) WaitFor(s string, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		if strings.Contains(l.b.String(), s) {
			l.mu.Unlock()
			return true
		}
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		changed := l.changed
		l.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			return false
		}
	}
}
