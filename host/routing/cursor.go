package routing

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/sdk/atomicfile"
)

// cursor is a rotating chain's count of unpaid successes: the next Run
// starts at that count modulo the providers it may try. It is kept in a
// file of its own, replaced whole (a temporary file written, synced and
// renamed over it, then the directory synced), so a crash or kill -9 at
// any moment leaves the old count or the new one, never a torn file.
//
// The file is written off the request path: advance bumps the count in
// memory and wakes a writer goroutine, which writes the latest count (an
// fsync on an SD card takes tens of milliseconds, which no answer should
// wait for). A kill -9 loses at most the advances of the last write's
// moment; Close writes what is left.
type cursor struct {
	path   string // "": memory only
	logger hclog.Logger

	mu      sync.Mutex
	n       uint64
	written uint64
	dirty   chan struct{} // a count is waiting to be written
	stop    chan struct{} // closed by close
	done    chan struct{} // closed when the writer has returned
	running bool
}

// cursorFile is the file's content.
type cursorFile struct {
	Cursor uint64 `json:"cursor"`
}

// openCursor reads the count at path. A missing file starts at 0; an
// unreadable one too, with a warning: routing never stops serving for it.
func openCursor(path string, logger hclog.Logger) *cursor {
	c := &cursor{path: path, logger: logger, dirty: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	if path == "" {
		return c
	}
	b, err := os.ReadFile(path)
	switch {
	case os.IsNotExist(err):
	case err != nil:
		logger.Warn("rotation cursor unreadable; starting at the first provider", "path", path, "error", err)
	default:
		var f cursorFile
		if err := json.Unmarshal(b, &f); err != nil {
			logger.Warn("rotation cursor unreadable; starting at the first provider", "path", path, "error", err)
			break
		}
		c.n, c.written = f.Cursor, f.Cursor
	}
	return c
}

func (c *cursor) get() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// advance moves the rotation one provider on and has the count written.
func (c *cursor) advance() {
	c.mu.Lock()
	c.n++
	if c.path != "" && !c.running {
		c.running = true
		go c.writer()
	}
	c.mu.Unlock()
	select {
	case c.dirty <- struct{}{}:
	default: // a write is pending already; it takes the latest count
	}
}

func (c *cursor) writer() {
	defer close(c.done)
	for {
		select {
		case <-c.dirty:
			c.flush()
		case <-c.stop:
			c.flush()
			return
		}
	}
}

// flush writes the count if it changed since the last write.
func (c *cursor) flush() {
	c.mu.Lock()
	n, written := c.n, c.written
	c.mu.Unlock()
	if n == written {
		return
	}
	if err := writeAtomic(c.path, n); err != nil {
		c.logger.Warn("rotation cursor not saved", "path", c.path, "error", err)
		return
	}
	c.mu.Lock()
	c.written = n
	c.mu.Unlock()
}

// close writes what is not written yet and stops the writer.
func (c *cursor) close() {
	c.mu.Lock()
	running := c.running
	c.mu.Unlock()
	if !running {
		return
	}
	select {
	case <-c.stop:
	default:
		close(c.stop)
	}
	<-c.done
}

// writeAtomic replaces path with the count n, durably.
func writeAtomic(path string, n uint64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(cursorFile{Cursor: n})
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, append(b, '\n'), 0o600, true); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
