// Package idletrim gives a process's free heap back to the kernel once the
// process has gone idle after work: the host after its front door's
// requests, a plugin after its calls.
//
// Go keeps the heap a burst of work grew: the spans it freed stay mapped
// until a collection shrinks the heap goal and the background scavenger
// catches up, which an idle process, running no collection, does not do.
// A Trimmer waits until no work has been in flight for a while, then runs
// debug.FreeOSMemory once: one forced collection and the release of every
// free page.
//
// It must never trim while work is in flight (a collection would add to that
// work's latency), never more than once per idle period, and never when too
// little was allocated since the last trim to be worth a collection; it
// starts no goroutine of its own and, idle, wakes nothing.
package idletrim

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// After is how long a process must have been idle before its trim.
	After = 30 * time.Second
	// MinAlloc is how much the process must have allocated since its last
	// trim for the next to run: less is at most one collection's worth of
	// garbage (Go's smallest heap goal is 4 MB), which the runtime's own
	// collections and scavenger already deal with.
	MinAlloc = 4 << 20
)

// Work is what counts a process's work in flight: a *Trimmer, or a fake in
// a test of what counts.
type Work interface {
	Begin() // one piece of work started
	End()   // one that Begin counted ended
}

// Trimmer counts the work in flight and trims once the process idles.
type Trimmer struct {
	after    time.Duration
	minAlloc uint64
	active   atomic.Int64

	mu    sync.Mutex
	last  time.Time // when the work in flight last went to none
	armed bool      // timer is pending
	timer resetter  // runs fire when it expires

	trimMu    sync.Mutex
	trimmedAt uint64 // allocated bytes at the last trim

	// Replaced by tests, which then run fire themselves.
	now    func() time.Time
	allocs func() uint64
	trim   func()
}

// resetter is the part of *time.Timer a Trimmer uses.
type resetter interface{ Reset(time.Duration) bool }

// New returns a Trimmer that trims after idling for after, once minAlloc
// bytes were allocated since the last trim (or since the process started).
func New(after time.Duration, minAlloc uint64) *Trimmer {
	t := &Trimmer{after: after, minAlloc: minAlloc, now: time.Now, allocs: heapAllocs, trim: trim}
	timer := time.AfterFunc(time.Hour, t.fire)
	timer.Stop()
	t.timer = timer
	return t
}

// Begin counts one piece of work in flight.
func (t *Trimmer) Begin() { t.active.Add(1) }

// End ends a piece of work Begin counted. The last to end arms the trim.
func (t *Trimmer) End() {
	if t.active.Add(-1) > 0 {
		return
	}
	t.mu.Lock()
	t.last = t.now()
	if !t.armed {
		t.armed = true
		t.timer.Reset(t.after)
	}
	t.mu.Unlock()
}

// fire runs after the timer: it trims when the process has idled for the
// whole period, waits out the rest when work ended again since the timer
// was armed, and leaves re-arming to the End of work still in flight.
func (t *Trimmer) fire() {
	t.mu.Lock()
	if t.active.Load() > 0 {
		t.armed = false // the End that leaves no work in flight arms again
		t.mu.Unlock()
		return
	}
	if wait := t.after - t.now().Sub(t.last); wait > 0 {
		t.timer.Reset(wait)
		t.mu.Unlock()
		return
	}
	t.armed = false
	t.mu.Unlock()
	t.trimIfWorth()
}

// trimIfWorth trims when enough was allocated since the last trim.
func (t *Trimmer) trimIfWorth() {
	t.trimMu.Lock()
	defer t.trimMu.Unlock()
	a := t.allocs()
	if a-t.trimmedAt < t.minAlloc {
		return
	}
	t.trimmedAt = a
	t.trim()
}

// trim collects twice, then returns every free page to the kernel. The
// first collection moves what sync.Pools hold (buffers sized for the burst
// of work) to their victim caches; the second, FreeOSMemory's own, frees
// them.
func trim() {
	runtime.GC()
	debug.FreeOSMemory()
}

// heapAllocs is the bytes the process has allocated on the heap since it
// started.
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
