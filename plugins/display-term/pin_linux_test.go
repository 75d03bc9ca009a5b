package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

// TestFaceStaysPinnedWhileTheLogScrolls: on a real terminal the face holds
// the bottom rows; lines another writer (the host's log) puts on the same
// terminal scroll in the rows above it, never through it, and reach the
// scrollback; Halt gives the rows back, erased.
func TestFaceStaysPinnedWhileTheLogScrolls(t *testing.T) {
	t.Parallel()
	const rows, cols = 40, 100
	m, tty := openPTY(t, rows, cols)
	tr := record(m)
	log, err := os.OpenFile(tty, os.O_WRONLY|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	d := newTermDisplay()
	if err := configure(d, ttyConfig(tty, "")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	logf := func(format string, args ...any) {
		t.Helper()
		if _, err := fmt.Fprintf(log, format, args...); err != nil {
			t.Fatal(err)
		}
	}
	logf("log before the face\n")
	for _, f := range []sdk.Frame{{Expression: sdk.ExprIdle}, {Expression: sdk.ExprThinking, Text: "thinking…"}} {
		if err := d.Show(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 30 {
		logf("log line %02d\n", i)
	}
	last := sdk.Frame{Expression: sdk.ExprHappy, Text: "done", Status: map[string]string{"chain": "default"}}
	if err := d.Show(ctx, last); err != nil {
		t.Fatal(err)
	}
	logf("log after the face\n")
	if err := d.Halt(ctx); err != nil {
		t.Fatal(err)
	}
	d.Close()
	log.Close()

	s := newScreen(rows, cols)
	var held []string // the screen when the region changes last (Halt)
	s.onRegion = func(s *screen) {
		held = held[:0]
		for i := range rows {
			held = append(held, s.line(i))
		}
	}
	s.write(tr.all(t))
	if diff := cmp.Diff([]string{"1;16", ""}, s.regions); diff != "" {
		t.Errorf("scroll regions set (-want +got):\n%s", diff)
	}
	if len(s.intrusions) > 0 {
		t.Errorf("log text ran through the face: %q", strings.Join(s.intrusions, ""))
	}
	want := d.frame(last).rows(true)
	if diff := cmp.Diff(want, held[rows-len(want):]); diff != "" {
		t.Errorf("the face's rows before Halt (-want +got):\n%s", diff)
	}
	var region []string // the latest log lines, and the cursor's empty line under them
	for i := 16; i < 30; i++ {
		region = append(region, fmt.Sprintf("log line %02d", i))
	}
	region = append(region, "log after the face", "")
	if diff := cmp.Diff(region, held[:rows-len(want)]); diff != "" {
		t.Errorf("the rows above the face before Halt (-want +got):\n%s", diff)
	}
	if !strings.Contains(strings.Join(s.scrollback, "\n"), "log before the face") || !strings.Contains(strings.Join(s.scrollback, "\n"), "log line 00") {
		t.Errorf("log lines scrolled off were lost, not kept in the scrollback: %q", s.scrollback)
	}
	for i := rows - len(want); i < rows; i++ {
		if l := s.line(i); l != "" {
			t.Errorf("after Halt row %d still shows %q", i+1, l)
		}
	}
}

// TestTerminalResizeMovesTheFace: a frame after the terminal changed size
// gives the old rows back and pins the face to the new bottom rows.
func TestTerminalResizeMovesTheFace(t *testing.T) {
	t.Parallel()
	m, tty := openPTY(t, 40, 100)
	tr := record(m)
	d := newTermDisplay()
	if err := configure(d, ttyConfig(tty, "")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	f := sdk.Frame{Expression: sdk.ExprIdle}
	if err := d.Show(ctx, f); err != nil {
		t.Fatal(err)
	}
	first := tr.waitFor(t, "the first frame", func(s string) bool { return strings.HasSuffix(s, restoreCursor) })
	resizePTY(t, m, 50, 120)
	if err := d.Show(ctx, f); err != nil {
		t.Fatal(err)
	}
	d.Close()
	rest := lf(strings.TrimPrefix(tr.all(t), first))
	old, now := pin{rows: 40, cols: 100, height: 24}, pin{rows: 50, cols: 120, height: 24}
	want := old.release() + now.setup() + now.draw(d.frame(f).rows(true)) + now.release()
	if diff := cmp.Diff(want, rest); diff != "" {
		t.Errorf("after the resize (-want +got):\n%s", diff)
	}
}

// TestSmallTerminalGetsPlainFrames: a terminal too short for the face and
// two log rows is drawn on as before the pinning, after a screen clear.
func TestSmallTerminalGetsPlainFrames(t *testing.T) {
	t.Parallel()
	m, tty := openPTY(t, 24, 80)
	tr := record(m)
	d := newTermDisplay()
	if err := configure(d, ttyConfig(tty, "")); err != nil {
		t.Fatal(err)
	}
	f := sdk.Frame{Expression: sdk.ExprIdle, Text: "hi"}
	if err := d.Show(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	d.Close()
	want := clearScreen + strings.Join(d.frame(f).rows(false), "\n") + "\n"
	if diff := cmp.Diff(want, lf(tr.all(t))); diff != "" {
		t.Errorf("frame on a 24-row terminal (-want +got):\n%s", diff)
	}
}
