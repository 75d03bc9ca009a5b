package session

import (
	"sync"
	"sync/atomic"
)

// displayBuffer is how many deltas a subscriber may fall behind before the
// display lane drops for it.
const displayBuffer = 256

// recentBytes bounds the newest record payloads kept in memory, so that
// live subscribers read new records without going back to the WAL.
const recentBytes = 1 << 20

// lanes tells a session's subscribers about new durable records (the
// control lane, which they then read from the WAL) and hands them token
// deltas (the display lane, which is never stored). Publishing never
// blocks: a slow subscriber loses deltas, counted and reported in-band as a
// gap, and never holds up the loop.
type lanes struct {
	mu      sync.Mutex
	last    uint64        // last durable wal_seq
	changed chan struct{} // closed when last moves
	viewers map[*viewer]struct{}

	// recent holds the payloads of records recent[0].seq … last, at most
	// budget bytes of them (and always the newest batch).
	recent []recentRecord
	size   int
	budget int
}

type recentRecord struct {
	seq     uint64
	payload []byte
}

// viewer is one subscriber's display lane.
type viewer struct {
	ch      chan Delta
	dropped atomic.Int64
}

func newLanes(last uint64) *lanes {
	return &lanes{last: last, changed: make(chan struct{}), viewers: map[*viewer]struct{}{}, budget: recentBytes}
}

// advance records that the WAL now ends with payloads, the records first …
// first+len-1, and wakes every waiter.
func (l *lanes) advance(first uint64, payloads [][]byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, p := range payloads {
		l.recent = append(l.recent, recentRecord{seq: first + uint64(i), payload: p})
		l.size += len(p)
	}
	drop := 0
	for l.size > l.budget && drop < len(l.recent)-len(payloads) {
		l.size -= len(l.recent[drop].payload)
		drop++
	}
	clear(l.recent[:drop]) // let the dropped payloads go
	l.recent = l.recent[drop:]
	l.last = first + uint64(len(payloads)) - 1
	close(l.changed)
	l.changed = make(chan struct{})
}

// since returns (a copy of) the records from … last, when they are all in
// memory.
func (l *lanes) since(from uint64) ([]recentRecord, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if from > l.last {
		return nil, true
	}
	if len(l.recent) == 0 || from < l.recent[0].seq {
		return nil, false
	}
	return append([]recentRecord(nil), l.recent[from-l.recent[0].seq:]...), true
}

// position returns the last durable seq and a channel closed once it moves.
func (l *lanes) position() (uint64, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last, l.changed
}

// show puts d on every viewer's lane, dropping it for viewers that are full.
func (l *lanes) show(d Delta) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for v := range l.viewers {
		select {
		case v.ch <- d:
		default:
			v.dropped.Add(1)
		}
	}
}

func (l *lanes) watch() *viewer {
	v := &viewer{ch: make(chan Delta, displayBuffer)}
	l.mu.Lock()
	l.viewers[v] = struct{}{}
	l.mu.Unlock()
	return v
}

func (l *lanes) unwatch(v *viewer) {
	l.mu.Lock()
	delete(l.viewers, v)
	l.mu.Unlock()
}
