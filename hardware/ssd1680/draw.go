package ssd1680

import (
	"bytes"
	"context"
	"fmt"
	"image"
)

// Refresh says what Draw did.
type Refresh int

const (
	RefreshNone    Refresh = iota // the frame was already on the glass
	RefreshFull                   // full refresh: clean, flashes, about 2 s
	RefreshPartial                // partial refresh: no flash, about 0.3 s
)

func (r Refresh) String() string {
	switch r {
	case RefreshFull:
		return "full"
	case RefreshPartial:
		return "partial"
	}
	return "none"
}

// Draw shows img, which must be Bounds() in size. It wakes the panel if it
// sleeps, skips a frame identical to the one shown, and otherwise picks the
// refresh: full for the first frame, after a failure, every FullEvery-th
// refresh and when the last full one is older than FullInterval; partial
// otherwise. On ctx cancellation or an error the panel may be mid-update, so
// the next Draw re-initialises it and refreshes fully.
func (d *Dev) Draw(ctx context.Context, img image.Image) (Refresh, error) {
	if err := Pack(d.next, img, d.opts.Rotation); err != nil {
		return RefreshNone, err
	}
	if err := ctx.Err(); err != nil {
		return RefreshNone, fmt.Errorf("ssd1680: draw: %w", err)
	}
	if !d.dirty && d.shown != nil && bytes.Equal(d.next, d.shown) {
		d.stats.Skipped++
		return RefreshNone, nil
	}
	kind := RefreshPartial
	if d.needsFull() {
		kind = RefreshFull
	}
	return kind, d.refresh(ctx, kind)
}

// Full shows img with a full refresh whatever the policy says, e.g. to clear
// ghosting on demand.
func (d *Dev) Full(ctx context.Context, img image.Image) error {
	if err := Pack(d.next, img, d.opts.Rotation); err != nil {
		return err
	}
	return d.refresh(ctx, RefreshFull)
}

// Sleep puts the panel into deep sleep; the image stays on the glass and the
// next Draw wakes the panel with a reset. Sleeping a sleeping panel does
// nothing.
func (d *Dev) Sleep(ctx context.Context) error {
	if !d.awake {
		return nil
	}
	if err := d.sleep(ctx); err != nil {
		d.fail()
		return err
	}
	return nil
}

func (d *Dev) needsFull() bool {
	switch {
	case d.shown == nil || d.dirty:
		return true
	case d.opts.FullEvery > 0 && d.sinceFull+1 >= d.opts.FullEvery:
		return true
	case d.opts.FullInterval > 0 && d.opts.Clock.Now().Sub(d.lastFull) >= d.opts.FullInterval:
		return true
	}
	return false
}

// refresh shows d.next with the given kind, waking the panel first.
func (d *Dev) refresh(ctx context.Context, kind Refresh) error {
	if !d.awake || d.dirty {
		if err := d.init(ctx); err != nil {
			d.fail()
			return err
		}
	}
	var err error
	if kind == RefreshFull {
		err = d.full(ctx, d.next)
	} else {
		err = d.partial(ctx, d.shown, d.next)
	}
	if err != nil {
		d.fail()
		return err
	}
	d.dirty = false
	if d.shown == nil {
		d.shown = make([]byte, FrameBytes)
	}
	copy(d.shown, d.next)
	if kind == RefreshFull {
		d.stats.Full++
		d.sinceFull = 0
		d.lastFull = d.opts.Clock.Now()
	} else {
		d.stats.Partial++
		d.sinceFull++
	}
	return nil
}

// fail marks the panel state unknown: the next refresh re-initialises it and
// is a full one.
func (d *Dev) fail() {
	d.dirty = true
	d.awake = false
}
