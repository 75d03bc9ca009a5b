package chain

import (
	"context"
	"math/rand/v2"
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

// Rand is the engine's source of randomness: the jitter on retry waits.
// Tests inject a fixed one; a nil Chain.Rand means math/rand/v2's global
// source, which is safe for concurrent Runs. A *rand.Rand implements it but
// is not safe for concurrent use.
type Rand interface {
	// Float64 returns a number in [0, 1).
	Float64() float64
}

var _ Rand = (*rand.Rand)(nil)

type systemRand struct{}

func (systemRand) Float64() float64 { return rand.Float64() }

// Jitter is how far a retry wait may stray from its nominal value: a
// backoff without a hint lands in [0.8, 1.2) of itself, a Retry-After hint
// in [1, 1.2) of the hint, which stays a floor. Spread waits keep clients
// that failed together from retrying together.
const Jitter = 0.2

// jitter spreads wait, the nominal wait before a retry (hinted: it is the
// failure's Retry-After hint). u is in [0, 1). The result never exceeds
// limit unless the hint itself does.
func jitter(wait time.Duration, hinted bool, u float64, limit time.Duration) time.Duration {
	if wait <= 0 {
		return wait
	}
	f := 1 + Jitter*(2*u-1)
	if hinted {
		f = 1 + Jitter*u
	}
	d := time.Duration(float64(wait) * f)
	if limit > 0 {
		d = min(d, max(limit, wait))
	}
	return d
}
