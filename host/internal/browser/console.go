package browser

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/chromedp/chromedp"
)

// ConsoleMessage is one line of the page's console: a console.* call, an
// uncaught exception or unhandled rejection, or a browser log entry (such as
// a resource that failed to load).
type ConsoleMessage struct {
	Type string // "log", "info", "warning", "error", "exception", ...
	Text string
	URL  string
	Line int64 // from 0, as DevTools counts
	// Source is the part of the browser that logged a browser log entry
	// ("network", "security", ...); empty for console calls and exceptions.
	Source string
}

// IsError reports whether the message is one a working page never logs: an
// exception, or anything at the error level, such as a script or image that
// failed to load. A missing /favicon.ico is not one: Chromium asks for it on
// its own, at a moment of its choosing, and a page need not have it.
func (m ConsoleMessage) IsError() bool {
	if m.Source == "network" && strings.HasSuffix(m.URL, "/favicon.ico") {
		return false
	}
	return m.Type == string(chromedp.ConsoleError) || m.Type == string(chromedp.ConsoleException)
}

func (m ConsoleMessage) String() string {
	if m.URL == "" {
		return m.Type + ": " + m.Text
	}
	return fmt.Sprintf("%s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line+1)
}

// barrierPrefix marks the console.debug lines Console writes to know it has
// read everything before them; they are not the page's, so never returned.
const barrierPrefix = "axon-browser-barrier-"

// consoleLog collects the tab's console from New on.
type consoleLog struct {
	mu       sync.Mutex
	msgs     []ConsoleMessage
	barriers map[string]chan struct{}
	next     int
	done     chan struct{}
}

func startConsole(ctx context.Context) *consoleLog {
	c := &consoleLog{barriers: map[string]chan struct{}{}, done: make(chan struct{})}
	msgs := chromedp.Console(ctx) // subscribes now, before any page runs
	go func() {
		defer close(c.done)
		for m, err := range msgs {
			if err != nil {
				return // the tab closed
			}
			c.add(m)
		}
	}()
	return c
}

func (c *consoleLog) add(m chromedp.ConsoleMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if strings.HasPrefix(m.Text, barrierPrefix) {
		if ch, ok := c.barriers[m.Text]; ok {
			close(ch)
			delete(c.barriers, m.Text)
		}
		return
	}
	c.msgs = append(c.msgs, ConsoleMessage{Type: string(m.Type), Text: m.Text, URL: m.URL, Line: m.Line, Source: m.Source})
}

func (c *consoleLog) barrier() (string, chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	mark := barrierPrefix + strconv.Itoa(c.next)
	ch := make(chan struct{})
	c.barriers[mark] = ch
	return mark, ch
}

func (c *consoleLog) snapshot() []ConsoleMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]ConsoleMessage(nil), c.msgs...)
}

func (c *consoleLog) wait() { <-c.done }

// Console returns every console message since New, in order, up to this
// moment: it logs a marker and waits to read it back, so nothing the page
// logged before the call is still in flight.
func (b *Browser) Console() []ConsoleMessage {
	b.t.Helper()
	mark, seen := b.console.barrier()
	if _, err := run(b, chromedp.Evaluate[chromedp.Void]("console.debug("+strconv.Quote(mark)+")")); err != nil {
		b.t.Fatalf("browser: reading the console: %v", b.explain(err))
	}
	ctx, cancel := context.WithTimeout(b.ctx, b.timeout)
	defer cancel()
	select {
	case <-seen:
	case <-ctx.Done():
		b.t.Fatalf("browser: reading the console: its marker did not come back within %v", b.timeout)
	}
	return b.console.snapshot()
}

// JSErrors returns the console's errors and exceptions so far.
func (b *Browser) JSErrors() []ConsoleMessage {
	b.t.Helper()
	var errs []ConsoleMessage
	for _, m := range b.Console() {
		if m.IsError() {
			errs = append(errs, m)
		}
	}
	return errs
}

// NoJSErrors fails the test (without stopping it) for each error or
// exception the page has logged so far.
func (b *Browser) NoJSErrors() {
	b.t.Helper()
	for _, m := range b.JSErrors() {
		b.t.Errorf("browser: the page logged %s", m)
	}
}
