package ssd1680

import (
	"fmt"
	"time"
)

// Glass is what a Dev knows about its panel that outlives the Dev: the
// frame on the glass and where the refresh policy stands. An E-Ink panel
// keeps its image without power, so a Dev in a later process that Resumes
// it can start with a partial refresh instead of the full one (about 2 s of
// black-and-white flashes) a Dev that knows nothing must begin with.
type Glass struct {
	Frame     []byte    // the frame on the glass, packed (FrameBytes, native orientation)
	SinceFull int       // refreshes since the last full one
	LastFull  time.Time // when the last full refresh finished
}

// Glass returns the panel's state for a later Dev to Resume. It reports
// false when the Dev does not know what the glass shows: before its first
// refresh (unless it was resumed), and after a failure that may have left
// the panel half way through an update.
func (d *Dev) Glass() (Glass, bool) {
	if d.shown == nil || d.dirty {
		return Glass{}, false
	}
	return Glass{Frame: append([]byte(nil), d.shown...), SinceFull: d.sinceFull, LastFull: d.lastFull}, true
}

// Resume tells a new Dev what an earlier one left on the glass, so that its
// first frame follows the refresh policy as if no process had ended: partial
// unless a full refresh is due. The panel is still woken with a reset and the
// full init. Resume only a Dev that has not drawn yet, and only with a state
// a Dev of the same panel returned after its last refresh: a wrong frame
// makes the partial refreshes ghost until the next full one.
func (d *Dev) Resume(g Glass) error {
	if d.shown != nil || d.dirty || d.awake {
		return fmt.Errorf("ssd1680: resume: the Dev has already driven the panel")
	}
	if len(g.Frame) != FrameBytes {
		return fmt.Errorf("ssd1680: resume: frame is %d bytes, want %d", len(g.Frame), FrameBytes)
	}
	if g.SinceFull < 0 {
		return fmt.Errorf("ssd1680: resume: %d refreshes since the last full one", g.SinceFull)
	}
	d.shown = append([]byte(nil), g.Frame...)
	d.sinceFull, d.lastFull = g.SinceFull, g.LastFull
	return nil
}
