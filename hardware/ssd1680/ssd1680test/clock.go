package ssd1680test

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Clock is a fake clock: Sleep advances it at once, and functions scheduled
// with AfterFunc run when it passes their time. It implements ssd1680.Clock.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	timers []timer
	slept  time.Duration
}

type timer struct {
	at time.Time
	fn func()
}

// NewClock returns a clock reading start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the fake time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep returns ctx.Err() if ctx is done, and otherwise advances the clock by
// d without waiting.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.slept += d
	c.mu.Unlock()
	c.Advance(d)
	return nil
}

// Slept is the total time spent in Sleep.
func (c *Clock) Slept() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.slept
}

// Advance moves the clock forward by d and runs the functions that fall due,
// in time order, outside the clock's lock.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []timer
	keep := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			keep = append(keep, t)
		} else {
			due = append(due, t)
		}
	}
	c.timers = keep
	c.mu.Unlock()
	sort.SliceStable(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	for _, t := range due {
		t.fn()
	}
}

// AfterFunc runs fn once the clock has advanced by d.
func (c *Clock) AfterFunc(d time.Duration, fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timers = append(c.timers, timer{at: c.now.Add(d), fn: fn})
}
