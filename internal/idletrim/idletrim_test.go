package idletrim

import (
	"runtime/metrics"
	"testing"
	"time"
)

// fake is a Trimmer on a clock and a timer the test moves: the test sees
// each arming of the timer and runs fire itself when the timer would.
type fake struct {
	*Trimmer
	clock     time.Time
	timerSet  time.Duration // the timer's pending duration; 0: not armed
	resets    int           // times the timer was set
	trims     int
	allocated uint64
}

func newFake(after time.Duration) *fake {
	f := &fake{Trimmer: New(after, 100), clock: time.Unix(1e9, 0)}
	f.Trimmer.now = func() time.Time { return f.clock }
	f.Trimmer.timer = f
	f.Trimmer.allocs = func() uint64 { return f.allocated }
	f.Trimmer.trim = func() { f.trims++ }
	return f
}

func (f *fake) Reset(d time.Duration) bool {
	f.timerSet = d
	f.resets++
	return true
}

// expire moves the clock by the timer's duration and runs fire, as the
// timer would.
func (f *fake) expire(t *testing.T) {
	t.Helper()
	if f.timerSet == 0 {
		t.Fatal("the timer is not armed")
	}
	f.clock = f.clock.Add(f.timerSet)
	f.timerSet = 0
	f.fire()
}

// wantTimer checks the timer's pending duration (0: not armed).
func (f *fake) wantTimer(t *testing.T, d time.Duration, why string) {
	t.Helper()
	if f.timerSet != d {
		t.Fatalf("%s: the timer is set for %v, want %v", why, f.timerSet, d)
	}
}

func (f *fake) wantTrims(t *testing.T, n int, when string) {
	t.Helper()
	if f.trims != n {
		t.Fatalf("%s: %d trims, want %d", when, f.trims, n)
	}
}

func TestTrimsOnceAfterWorkEnds(t *testing.T) {
	after := 30 * time.Second
	f := newFake(after)
	f.allocated = 1000
	f.Begin()
	f.Begin()
	f.End()
	f.wantTimer(t, 0, "with work still in flight")
	f.End()
	f.wantTimer(t, after, "after the last End")
	f.expire(t)
	f.wantTrims(t, 1, "after an idle period")
	f.wantTimer(t, 0, "after the trim, with no work since")
}

func TestTrimsOnlyAfterEnoughAllocation(t *testing.T) {
	f := newFake(time.Second)
	f.allocated = 1000
	f.Begin()
	f.End()
	f.expire(t)
	f.wantTrims(t, 1, "after the first work")

	f.allocated += 50 // below the fake's 100 bytes since the last trim
	f.Begin()
	f.End()
	f.expire(t)
	f.wantTrims(t, 1, "after too little allocation")

	f.allocated += 60
	f.Begin()
	f.End()
	f.expire(t)
	f.wantTrims(t, 2, "once enough was allocated")
}

// TestWorkDuringTheWaitPostponesTheTrim: work that begins while the timer
// is pending holds the trim off until it ends, whether it outlasts the
// timer or ends before it fires, and the idle period counts from its end.
func TestWorkDuringTheWaitPostponesTheTrim(t *testing.T) {
	after := 30 * time.Second
	// busyInTheWait: work ended and armed the timer; a tenth of the period
	// later, new work began.
	busyInTheWait := func() *fake {
		f := newFake(after)
		f.allocated = 1000
		f.Begin()
		f.End()
		f.clock = f.clock.Add(after / 10)
		f.Begin()
		return f
	}
	t.Run("outlasts the timer", func(t *testing.T) {
		f := busyInTheWait()
		f.expire(t)
		f.wantTrims(t, 0, "while work was in flight")
		f.wantTimer(t, 0, "with work in flight")
		f.End()
		f.wantTimer(t, after, "after the work's End: a whole period")
		f.expire(t)
		f.wantTrims(t, 1, "a period after the work ended")
	})
	t.Run("ends before the timer fires", func(t *testing.T) {
		f := busyInTheWait()
		f.End()
		if f.resets != 1 {
			t.Fatalf("the timer was set %d times, want once: an End while it is pending leaves it be", f.resets)
		}
		f.clock = f.clock.Add(after - after/10) // the first End's period is over
		f.timerSet = 0
		f.fire()
		f.wantTrims(t, 0, "a period after the first work, less than one after the second")
		f.wantTimer(t, after/10, "the rest of the second work's period")
		f.expire(t)
		f.wantTrims(t, 1, "a period after the second work ended")
	})
}

// hangGuard bounds the wait for the real trim's timer.
const hangGuard = 10 * time.Second

// TestTrimReturnsFreedHeap runs the real trim: a garbage burst, once
// trimmed, leaves the released heap larger than before.
func TestTrimReturnsFreedHeap(t *testing.T) {
	tr := New(time.Millisecond, 1<<20)
	done := make(chan struct{})
	trim := tr.trim
	tr.trim = func() { trim(); close(done) }
	for range 64 {
		sink = append(sink, make([]byte, 64<<10))
	}
	before := released()
	sink = nil
	tr.Begin()
	tr.End()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Fatal("no trim")
	}
	if after := released(); after <= before {
		t.Fatalf("heap released to the OS: %d bytes before the trim, %d after; want more", before, after)
	}
}

// sink keeps the burst's garbage reachable until the test drops it.
var sink [][]byte

// released is the heap memory the runtime has returned to the OS.
func released() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
