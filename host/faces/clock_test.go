package faces

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/axonhq/axon/host/chain"
)

// fakeClock is a manual clock: time moves only through Advance, which runs
// the callbacks of the timers that come due before it returns. Sleep blocks
// until Advance reaches its end (or ctx is done); each Sleep and AfterFunc
// is announced on waits, so a test knows a goroutine has started to wait
// before it moves time.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	waits  chan time.Duration
}

type fakeTimer struct {
	c      *fakeClock
	when   time.Time
	f      func()
	active bool
}

var _ chain.Clock = (*fakeClock)(nil)

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC), waits: make(chan time.Duration, 1000)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) chain.Timer {
	c.mu.Lock()
	t := &fakeTimer{c: c, when: c.now.Add(d), f: f, active: true}
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	select {
	case c.waits <- d:
	default: // nobody is counting
	}
	return t
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	done := make(chan struct{})
	t := c.AfterFunc(d, func() { close(done) })
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-done:
		return nil
	}
}

// Advance moves time by d and runs, in order, every timer now due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var due *fakeTimer
		for _, t := range c.timers {
			if t.active && !t.when.After(c.now) && (due == nil || t.when.Before(due.when)) {
				due = t
			}
		}
		if due == nil {
			c.mu.Unlock()
			return
		}
		due.active = false
		c.mu.Unlock()
		due.f()
	}
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.active = false
	return was
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.when, t.active = t.c.now.Add(d), true
	return was
}

// awaitWait returns once some goroutine has started a timer or a sleep of d.
func (c *fakeClock) awaitWait(t *testing.T, d time.Duration) {
	t.Helper()
	timeout := time.After(10 * time.Second) // a hang guard, not the claim
	for {
		select {
		case got := <-c.waits:
			if got == d {
				return
			}
		case <-timeout:
			t.Fatalf("nothing waited %v on the clock", d)
		}
	}
}
