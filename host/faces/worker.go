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

// retry puts back f, a frame that failed to show, unless a newer one is
// waiting: the latest still wins. It reports whether f went back.
func (w *worker) retry(f sdk.Frame) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pending != nil {
		return false
	}
	w.pending = &f
	return true
}

// Waits before a failed frame is tried again: the first soon (a plugin
// that crashed is back within its restart backoff), then longer, so a
// display that stays broken costs a call every half minute.
const (
	firstRetry = 100 * time.Millisecond
	maxRetry   = 30 * time.Second
)

func retryWait(failures int) time.Duration {
	d := firstRetry
	for i := 1; i < failures && d < maxRetry; i++ {
		d *= 2
	}
	return min(d, maxRetry)
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
	failures := 0
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
		// Rate limit: frames offered meanwhile wait in the mailbox, coalesced.
		wait := interval - w.opts.Clock.Now().Sub(start)
		again := false
		if err != nil {
			failures++
			log := w.logger.Warn
			if failures > 1 {
				log = w.logger.Debug // one warning a failing streak, not one a retry
			}
			log("display failed; the turn goes on", "expression", f.Expression, "error", err, "failures", failures)
			// A frame that failed is tried again, so the panel never stays on
			// a face the turn has left, unless a newer frame replaced it.
			if again = w.retry(f); again {
				wait = max(wait, retryWait(failures))
			}
		} else {
			if failures > 0 {
				w.logger.Info("display back", "expression", f.Expression, "failures", failures)
			}
			failures = 0
			last, shown = f, true
			if w.opts.Shown != nil {
				w.opts.Shown(w.display.Name(), f, caps)
			}
		}
		if wait > 0 {
			if w.opts.Clock.Sleep(ctx, wait) != nil {
				return
			}
		}
		if again {
			select {
			case w.wake <- struct{}{}:
			default:
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
