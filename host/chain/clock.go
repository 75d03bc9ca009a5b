package chain

import (
	"context"
	"time"
)

// Clock is the engine's source of time: attempt latency, the wait before a
// retry, and the first-token and idle timeouts. Tests inject a fake; a nil
// Chain.Clock means the system clock.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f, in its own goroutine, once d has elapsed, unless
	// the returned Timer is stopped first.
	AfterFunc(d time.Duration, f func()) Timer
	// Sleep waits for d, or until ctx is done and then returns ctx.Err().
	Sleep(ctx context.Context, d time.Duration) error
}

// Timer is the handle AfterFunc returns; *time.Timer implements it.
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

var (
	_ Timer = (*time.Timer)(nil)
	_ Clock = systemClock{}
)

// SystemClock is the wall clock, the default wherever a Clock is optional
// (Chain.Clock here, faces.Options.Clock for the faces).
func SystemClock() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

func (systemClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
