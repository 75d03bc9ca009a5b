package faces

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/sdk"
)

// worker owns one display: a one-frame mailbox, drained at the panel's pace.
type worker struct {
	display Display
	opts    Options
	logger  hclog.Logger
	wake    chan struct{} // capacity 1: "a newer frame is waiting"

	mu      sync.Mutex
	pending *sdk.Frame
}

// offer replaces the pending frame; the latest wins.
func (w *worker) offer(f sdk.Frame) {
	w.mu.Lock()
	w.pending = &f
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *worker) take() (sdk.Frame, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pending == nil {
		return sdk.Frame{}, false
	}
	f := *w.pending
	w.pending = nil
	return f, true
}

func (w *worker) run(ctx context.Context) {
	interval := w.opts.MinInterval
	// The first call starts the plugin: a failure here is the reason the
	// display stays dark (its Configure error), which the frames after it
	// only see as "restarting".
	caps, err := w.caps(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		w.logger.Warn("display did not start; frames are tried again as they come", "error", err)
	case time.Duration(caps.MinIntervalMS)*time.Millisecond > interval:
		interval = time.Duration(caps.MinIntervalMS) * time.Millisecond
	}
	var last sdk.Frame
	var shown bool
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		}
		f, ok := w.take()
		if !ok || (shown && sameFrame(f, last)) {
			continue
		}
		start := w.opts.Clock.Now()
		sctx, cancel := withTimeout(ctx, w.opts.Clock, w.opts.ShowTimeout)
		err := w.display.Show(sctx, f)
		if err != nil && context.Cause(sctx) == errTimeout {
			err = fmt.Errorf("%w: %w", errTimeout, err)
		}
		cancel()
		if err != nil {
			w.logger.Warn("display failed; the turn goes on", "expression", f.Expression, "error", err)
		} else {
			last, shown = f, true
			if w.opts.Shown != nil {
				w.opts.Shown(w.display.Name(), f, caps)
			}
		}
		// Rate limit: frames offered meanwhile wait in the mailbox, coalesced.
		if wait := interval - w.opts.Clock.Now().Sub(start); wait > 0 {
			if w.opts.Clock.Sleep(ctx, wait) != nil {
				return
			}
		}
	}
}

func (w *worker) caps(ctx context.Context) (sdk.DisplayCaps, error) {
	ctx, cancel := withTimeout(ctx, w.opts.Clock, w.opts.ShowTimeout)
	defer cancel()
	return w.display.Caps(ctx)
}

func sameFrame(a, b sdk.Frame) bool {
	if a.Expression != b.Expression || a.Text != b.Text || len(a.Status) != len(b.Status) {
		return false
	}
	for k, v := range a.Status {
		if b.Status[k] != v {
			return false
		}
	}
	return true
}
