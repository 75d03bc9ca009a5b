package idletrim

import (
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"
)

// fake is a Trimmer whose trims are counted and whose allocation counter
// the test sets.
type fake struct {
	*Trimmer
	trims     chan struct{}
	allocated atomic.Uint64
}

func newFake(after time.Duration) *fake {
	f := &fake{Trimmer: New(after, 100), trims: make(chan struct{}, 16)}
	f.Trimmer.allocs = f.allocated.Load
	f.Trimmer.trim = func() { f.trims <- struct{}{} }
	return f
}

// hangGuard bounds every wait for a trim that must come.
const hangGuard = 10 * time.Second

func (f *fake) wantTrim(t *testing.T) {
	t.Helper()
	select {
	case <-f.trims:
	case <-time.After(hangGuard):
		t.Fatal("no trim after the process went idle")
	}
}

// wantNoTrim waits d and fails if a trim ran meanwhile.
func (f *fake) wantNoTrim(t *testing.T, d time.Duration, why string) {
	t.Helper()
	select {
	case <-f.trims:
		t.Fatal("trimmed " + why)
	case <-time.After(d):
	}
}

func TestTrimsOnceAfterWorkEnds(t *testing.T) {
	f := newFake(20 * time.Millisecond)
	f.allocated.Store(1000)
	f.Begin()
	f.Begin()
	f.wantNoTrim(t, 100*time.Millisecond, "with nothing ended yet")
	f.End()
	f.wantNoTrim(t, 100*time.Millisecond, "with work still in flight")
	f.End()
	f.wantTrim(t)
	f.wantNoTrim(t, 100*time.Millisecond, "twice in one idle period")
}

func TestTrimsOnlyAfterEnoughAllocation(t *testing.T) {
	f := newFake(10 * time.Millisecond)
	f.allocated.Store(1000)
	f.Begin()
	f.End()
	f.wantTrim(t)

	f.allocated.Add(50) // below the fake's 100 bytes since the last trim
	f.Begin()
	f.End()
	f.wantNoTrim(t, 100*time.Millisecond, "after too little allocation")

	f.allocated.Add(60)
	f.Begin()
	f.End()
	f.wantTrim(t)
}

// TestWorkDuringTheWaitPostponesTheTrim: work that begins while the timer
// is pending holds the trim off until it ends, whether it outlasts the
// timer or ends before it fires, and the idle period counts from its end.
func TestWorkDuringTheWaitPostponesTheTrim(t *testing.T) {
	after := time.Second // far beyond the test's own pause, however busy the machine
	for _, outlasts := range []bool{true, false} {
		f := newFake(after)
		f.allocated.Store(1000)
		f.Begin()
		f.End()
		time.Sleep(after / 10)
		f.Begin()
		if outlasts {
			f.wantNoTrim(t, 2*after, "while work was in flight")
		}
		ended := time.Now()
		f.End()
		f.wantTrim(t)
		if idle := time.Since(ended); idle < after {
			t.Fatalf("work outlasting the timer %v: trimmed %v after it ended, want at least %v", outlasts, idle, after)
		}
	}
}

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
