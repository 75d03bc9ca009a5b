package session

import (
	"context"
	"errors"
	"fmt"
)

// Item is one thing a subscriber receives: a control event (durable,
// addressed by its cursor) or a display delta (lossy, never replayed).
type Item struct {
	Event *Event
	Delta *Delta
}

// FollowOptions tune Follow.
type FollowOptions struct {
	// Display adds the display lane: token deltas as they stream.
	Display bool
	// Run, when set, ends Follow once that run finishes or pauses.
	Run string
	// Ready, when set, is called once the session is open and the
	// subscription is in place, before the first item: an HTTP handler
	// writes its response headers there.
	Ready func()
}

// errStop ends a replay early without an error.
var errStop = errors.New("stop")

// Follow calls fn with every control event of session id after cursor
// after, in order and exactly once, then with each new one as it becomes
// durable; with opts.Display, display deltas are interleaved as they
// stream. Control events are read back from the WAL, so a subscriber that
// reconnects with the cursor of the last event it saw misses none and sees
// none twice. A subscriber too slow for the display lane loses deltas and
// receives a gap item saying how many before its next item.
//
// Follow returns nil once opts.Run has ended, fn's error when it fails,
// ctx's when it ends, ErrShuttingDown when the host stops, and a *LogError
// when the session's log fails (follow again from the last cursor: the
// run's interrupted end is there once the log can be written).
func (m *Manager) Follow(ctx context.Context, id string, after Cursor, opts FollowOptions, fn func(Item) error) error {
	if !validID(id) || !m.exists(id) {
		return fmt.Errorf("%w: session %q", ErrNotFound, id)
	}
	a, err := m.acquire(id, nil)
	if err != nil {
		return err
	}
	defer m.release(a)
	if lost(a) {
		return a.broken
	}
	ended := false
	if opts.Run != "" {
		if ended, err = a.runEndedBefore(opts.Run, after); err != nil {
			return err
		}
	}
	var v *viewer
	if opts.Display {
		v = a.lanes.watch()
		defer a.lanes.unwatch(v)
	}
	deliver := func(it Item) error {
		if v != nil {
			if n := v.dropped.Swap(0); n > 0 {
				if err := fn(Item{Delta: &Delta{Type: DeltaGap, Dropped: n}}); err != nil {
					return err
				}
			}
		}
		return fn(it)
	}
	var deltas <-chan Delta
	if v != nil {
		deltas = v.ch
	}
	if opts.Ready != nil {
		opts.Ready()
	}
	if ended {
		return nil
	}
	cur := after
	for {
		last, changed := a.lanes.position()
		if cur.Seq < last || cur.Sub != wholeRecord {
			// Deltas are shown before their step is committed: hand over
			// those already queued first, so they precede its event.
			if err := drain(deltas, deliver); err != nil {
				return err
			}
			err := a.replay(cur, func(e Event) error {
				if err := deliver(Item{Event: &e}); err != nil {
					return err
				}
				cur = e.Cursor
				if opts.Run != "" && e.RunID == opts.Run && e.Ends() {
					ended = true
					return errStop
				}
				return nil
			})
			if ended {
				return nil
			}
			if err != nil {
				if lost(a) {
					return a.broken
				}
				return err
			}
			// replay delivers whole records: every event of cur.Seq is seen.
			cur = After(cur.Seq)
		}
		select {
		case <-changed:
		case d := <-deltas:
			if err := deliver(Item{Delta: &d}); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		case <-m.quit:
			return ErrShuttingDown
		case <-a.lost:
			return a.broken
		}
	}
}

// lost reports whether a's WAL failed; a.broken is set once it has.
func lost(a *actor) bool {
	select {
	case <-a.lost:
		return true
	default:
		return false
	}
}

// drain delivers the deltas queued on ch without waiting for more.
func drain(ch <-chan Delta, deliver func(Item) error) error {
	for {
		select {
		case d := <-ch:
			if err := deliver(Item{Delta: &d}); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

// runEndedBefore reports whether run id finished or paused at or before
// cursor c (so following it from c would wait forever).
func (a *actor) runEndedBefore(id string, c Cursor) (bool, error) {
	var ended bool
	err := a.exec(func() error {
		r := a.st.byID[id]
		if r == nil {
			return fmt.Errorf("%w: run %q", ErrNotFound, id)
		}
		ended = r.status != StatusRunning && r.haltSeq <= c.Seq
		return nil
	})
	return ended, err
}

// replay calls fn with every control event after c, up to the last record
// the actor has folded and published (so a subscriber never sees an event
// before the projections include it). Recent records come from memory,
// older ones from the WAL; either way it never waits for the loop.
func (a *actor) replay(c Cursor, fn func(Event) error) error {
	from := c.Seq
	if c.Sub == wholeRecord {
		from++
	}
	upto, _ := a.lanes.position()
	each := func(seq uint64, payload []byte) error {
		if seq > upto {
			return errStop
		}
		rec, err := DecodeRecord(payload)
		if err != nil {
			return fmt.Errorf("session %s: record %d: %w", a.id, seq, err)
		}
		evs, err := expand(seq, rec)
		if err != nil {
			return err
		}
		for _, e := range evs {
			if !c.Before(e.Cursor.Seq, e.Cursor.Sub) {
				continue
			}
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	if recent, ok := a.lanes.since(from); ok {
		for _, r := range recent {
			if err = each(r.seq, r.payload); err != nil {
				break
			}
		}
	} else {
		err = a.w.Replay(from, each)
	}
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// Page is one page of a transcript.
type Page struct {
	Events []Event `json:"events"`
	// Next is the cursor to ask for the following page with; More says
	// whether there were more events when this page was read.
	Next Cursor `json:"next"`
	More bool   `json:"more"`
}

// Transcript returns up to limit control events of session id after
// cursor after.
func (m *Manager) Transcript(ctx context.Context, id string, after Cursor, limit int) (Page, error) {
	if !validID(id) || !m.exists(id) {
		return Page{}, fmt.Errorf("%w: session %q", ErrNotFound, id)
	}
	if limit < 1 {
		return Page{}, invalidf("limit", "must be positive")
	}
	a, err := m.acquire(id, nil)
	if err != nil {
		return Page{}, err
	}
	defer m.release(a)
	page := Page{Events: []Event{}, Next: after}
	err = a.replay(after, func(e Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(page.Events) == limit {
			page.More = true
			return errStop
		}
		page.Events = append(page.Events, e)
		page.Next = e.Cursor
		return nil
	})
	if err != nil && lost(a) {
		err = a.broken
	}
	return page, err
}
