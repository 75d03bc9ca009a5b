package ssd1680_test

import (
	"context"
	"testing"
	"time"

	"github.com/axonhq/axon/hardware/ssd1680"
	"github.com/axonhq/axon/hardware/ssd1680/ssd1680test"
)

// handOver ends d as its process would (the panel to deep sleep), models a
// new process opening the panel, and returns that process's Dev, resumed
// from d's Glass.
func handOver(t *testing.T, p *ssd1680test.Panel, d *ssd1680.Dev, o ssd1680.Opts) *ssd1680.Dev {
	t.Helper()
	g, ok := d.Glass()
	if !ok {
		t.Fatal("Glass: the Dev does not know what the glass shows")
	}
	if err := d.Sleep(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.Reopen()
	next := newDev(t, p, o)
	if err := next.Resume(g); err != nil {
		t.Fatalf("Resume: %v", err)
	}
	return next
}

// TestResumeContinuesOnTheGlass: a Dev in a new process, resumed from the
// one before, wakes the panel and refreshes it partially, with the frame the
// glass shows as the reference in RAM 0x26 (the fake panel reports a partial
// refresh against any other), and the policy's count goes on across the two.
func TestResumeContinuesOnTheGlass(t *testing.T) {
	t.Parallel()
	o := ssd1680.Opts{FullEvery: 3, FullInterval: -1}
	p := ssd1680test.New(ssd1680test.Options{})
	d := newDev(t, p, o)
	draw(t, d, noise(1, 250, 122), ssd1680.RefreshFull)
	draw(t, d, noise(2, 250, 122), ssd1680.RefreshPartial)

	d = handOver(t, p, d, o)
	drawSending(t, p, d, noise(3, 250, 122), ssd1680.RefreshPartial, concat(wakeLog, partialLog))
	// A full and a partial before the hand-over, a partial after: with
	// FullEvery 3 the next is full, as in one process.
	draw(t, d, noise(4, 250, 122), ssd1680.RefreshFull)
	noViolations(t, p)

	// The frame already on the glass is not drawn again.
	d = handOver(t, p, d, o)
	p.ResetLog()
	draw(t, d, noise(4, 250, 122), ssd1680.RefreshNone)
	if got := p.Log(); len(got) != 0 {
		t.Errorf("an unchanged frame after the hand-over sent %q", got)
	}
}

// TestResumeKeepsTheFullRefreshInterval: the time of the last full refresh
// travels too, so a process that starts after the interval refreshes fully.
func TestResumeKeepsTheFullRefreshInterval(t *testing.T) {
	t.Parallel()
	o := ssd1680.Opts{FullEvery: -1, FullInterval: time.Hour}
	p := ssd1680test.New(ssd1680test.Options{})
	d := newDev(t, p, o)
	draw(t, d, noise(1, 250, 122), ssd1680.RefreshFull)
	d = handOver(t, p, d, o)
	p.Clock.Advance(time.Hour)
	draw(t, d, noise(2, 250, 122), ssd1680.RefreshFull)
	noViolations(t, p)
}

// TestResumeWithTheWrongFrameIsCaught shows what the tests above rely on:
// resumed from a frame that is not on the glass, the partial refresh has
// the wrong reference, and the fake panel says so.
func TestResumeWithTheWrongFrameIsCaught(t *testing.T) {
	t.Parallel()
	o := ssd1680.Opts{}
	p := ssd1680test.New(ssd1680test.Options{})
	d := newDev(t, p, o)
	draw(t, d, noise(1, 250, 122), ssd1680.RefreshFull)
	g, _ := d.Glass()
	draw(t, d, noise(2, 250, 122), ssd1680.RefreshPartial) // g is stale now
	p.Reopen()
	d = newDev(t, p, o)
	if err := d.Resume(g); err != nil {
		t.Fatal(err)
	}
	draw(t, d, noise(3, 250, 122), ssd1680.RefreshPartial)
	if len(p.Violations()) == 0 {
		t.Error("a partial refresh against a frame not on the glass went unnoticed")
	}
}

// TestGlassIsUnknown: no state before the first refresh, none after a
// refresh that failed half way, and Resume refuses what it cannot use.
func TestGlassIsUnknown(t *testing.T) {
	t.Parallel()
	p := ssd1680test.New(ssd1680test.Options{})
	d := newDev(t, p, ssd1680.Opts{})
	if _, ok := d.Glass(); ok {
		t.Error("Glass before the first refresh reports a frame")
	}
	draw(t, d, noise(1, 250, 122), ssd1680.RefreshFull)
	g, ok := d.Glass()
	if !ok {
		t.Fatal("Glass after a refresh reports nothing")
	}
	if err := d.Resume(g); err == nil {
		t.Error("Resume of a Dev that has drawn succeeded")
	}
	cancelMidRefresh(t, p, d, noise(2, 250, 122))
	if _, ok := d.Glass(); ok {
		t.Error("Glass after a failed refresh reports a frame")
	}

	fresh := newDev(t, ssd1680test.New(ssd1680test.Options{}), ssd1680.Opts{})
	for _, bad := range []ssd1680.Glass{
		{Frame: make([]byte, ssd1680.FrameBytes-1)},
		{Frame: make([]byte, ssd1680.FrameBytes), SinceFull: -1},
	} {
		if err := fresh.Resume(bad); err == nil {
			t.Errorf("Resume(%d bytes, since full %d) succeeded", len(bad.Frame), bad.SinceFull)
		}
	}
}
