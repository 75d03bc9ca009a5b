package ssd1680_test

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"periph.io/x/conn/v3/gpio"

	"github.com/axonhq/axon/hardware/ssd1680"
	"github.com/axonhq/axon/hardware/ssd1680/ssd1680test"
)

// Command sequences as the panel logs them.
var (
	wakeLog = []string{
		"RST high", "RST low", "RST high",
		"12",
		"01 f9 00 00", "11 03", "44 00 0f", "45 00 00 f9 00", "3c 05",
		"21 00 80", "18 80",
	}
	fullLog = []string{
		"4e 00", "4f 00 00", "24 [4000 bytes]",
		"4e 00", "4f 00 00", "26 [4000 bytes]",
		"22 f7", "20",
	}
	partialLog = []string{
		"RST low", "RST high",
		"01 f9 00 00", "11 03", "44 00 0f", "45 00 00 f9 00", "3c 80",
		"4e 00", "4f 00 00", "26 [4000 bytes]",
		"4e 00", "4f 00 00", "24 [4000 bytes]",
		"22 ff", "20",
	}
	sleepLog = []string{"10 01"}
)

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// noise returns a w×h black-and-white image of random pixels: every bit of
// the RAM mapping shows up in it.
func noise(seed uint64, w, h int) *image.Gray {
	rng := rand.New(rand.NewPCG(seed, 1))
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		if rng.IntN(2) == 1 {
			img.Pix[i] = 0xFF
		}
	}
	return img
}

// native maps a logical image to the panel's native orientation, written
// independently of the driver from the rotation table in its docs.
func native(img *image.Gray, rot ssd1680.Rotation) *image.Gray {
	out := image.NewGray(image.Rect(0, 0, ssd1680.NativeWidth, ssd1680.NativeHeight))
	b := img.Bounds()
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			var X, Y int
			switch rot {
			case ssd1680.Rot0:
				X, Y = 121-y, x
			case ssd1680.Rot180:
				X, Y = y, 249-x
			case ssd1680.Rot90:
				X, Y = x, y
			case ssd1680.Rot270:
				X, Y = 121-x, 249-y
			}
			if img.GrayAt(x, y).Y >= 0x80 {
				out.Pix[out.PixOffset(X, Y)] = 0xFF
			}
		}
	}
	return out
}

func newDev(t *testing.T, p *ssd1680test.Panel, o ssd1680.Opts) *ssd1680.Dev {
	t.Helper()
	o.Clock = p.Clock
	d, err := ssd1680.New(p, p.Pins(), &o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func draw(t *testing.T, d *ssd1680.Dev, img image.Image, want ssd1680.Refresh) {
	t.Helper()
	got, err := d.Draw(context.Background(), img)
	if err != nil {
		t.Fatalf("Draw: %v", err)
	}
	if got != want {
		t.Fatalf("Draw did a %s refresh, want %s", got, want)
	}
}

func checkGlass(t *testing.T, p *ssd1680test.Panel, img *image.Gray, rot ssd1680.Rotation) {
	t.Helper()
	if n, at := mismatches(native(img, rot), p.Glass()); n > 0 {
		t.Errorf("the glass does not show the drawn image: %d pixels differ, the first at native %v", n, at)
	}
}

func mismatches(want, got *image.Gray) (n int, first image.Point) {
	for y := 0; y < want.Rect.Dy(); y++ {
		for x := 0; x < want.Rect.Dx(); x++ {
			if want.GrayAt(x, y) != got.GrayAt(x, y) {
				if n == 0 {
					first = image.Pt(x, y)
				}
				n++
			}
		}
	}
	return n, first
}

func noViolations(t *testing.T, p *ssd1680test.Panel) {
	t.Helper()
	if v := p.Violations(); len(v) > 0 {
		t.Errorf("protocol violations: %q", v)
	}
}

// TestDriverPath runs what the epd plugin does over a day: wake and full
// refresh, a partial refresh, deep sleep, then wake again into a partial
// refresh, and checks the command stream, the frames, the RAM reference for
// partial refresh and periph's own record of every transfer.
func TestDriverPath(t *testing.T) {
	t.Parallel()
	p := ssd1680test.New(ssd1680test.Options{})
	d := newDev(t, p, ssd1680.Opts{})
	a, b, c := noise(1, 250, 122), noise(2, 250, 122), noise(3, 250, 122)

	draw(t, d, a, ssd1680.RefreshFull)
	checkGlass(t, p, a, ssd1680.Rot0)
	draw(t, d, b, ssd1680.RefreshPartial)
	checkGlass(t, p, b, ssd1680.Rot0)
	if err := d.Sleep(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !p.Asleep() {
		t.Error("panel not in deep sleep after Sleep")
	}
	draw(t, d, c, ssd1680.RefreshPartial) // wakes, and the reference frame is still b
	checkGlass(t, p, c, ssd1680.Rot0)

	want := concat(wakeLog, fullLog, partialLog, sleepLog, wakeLog, partialLog)
	if diff := cmp.Diff(want, p.Log()); diff != "" {
		t.Errorf("command log (-want +got):\n%s", diff)
	}
	noViolations(t, p)

	var kinds []string
	for _, r := range p.Refreshes() {
		kinds = append(kinds, r.Kind)
	}
	if diff := cmp.Diff([]string{"full", "partial", "partial"}, kinds); diff != "" {
		t.Errorf("refreshes (-want +got):\n%s", diff)
	}
	if n, _ := mismatches(native(b, ssd1680.Rot0), ssd1680test.Decode(p.RAM(0x26))); n > 0 {
		t.Error("the last partial refresh did not carry the previous frame in RAM 0x26")
	}

	// periph's recorder saw exactly what the driver counted.
	st := d.Stats()
	var bytes int64
	for _, op := range p.Record.Ops {
		bytes += int64(len(op.W))
	}
	if st.Transfers != len(p.Record.Ops) || st.Bytes != bytes {
		t.Errorf("stats %+v, recorder saw %d transfers of %d bytes", st, len(p.Record.Ops), bytes)
	}
	if st.Full != 1 || st.Partial != 2 {
		t.Errorf("stats %+v, want 1 full and 2 partial", st)
	}
}

func TestResetPulseTiming(t *testing.T) {
	t.Parallel()
	p := ssd1680test.New(ssd1680test.Options{})
	d := newDev(t, p, ssd1680.Opts{})
	draw(t, d, noise(1, 250, 122), ssd1680.RefreshFull)
	var rst []ssd1680test.Edge
	for _, e := range p.Edges() {
		if e.Pin == "RST" {
			rst = append(rst, e)
		}
	}
	// RST starts low (the zero level), goes high, is pulsed low, then high.
	want := []gpio.Level{gpio.High, gpio.Low, gpio.High}
	if len(rst) != len(want) {
		t.Fatalf("RST edges %+v, want levels %v", rst, want)
	}
	for i, e := range rst {
		if e.Level != want[i] {
			t.Fatalf("RST edges %+v, want levels %v", rst, want)
		}
	}
	if low := rst[2].At - rst[1].At; low < time.Millisecond {
		t.Errorf("RST held low %v, the controller needs at least 1 ms", low)
	}
}

func TestBusyStuckTimesOut(t *testing.T) {
	t.Parallel()
	p := ssd1680test.New(ssd1680test.Options{StuckBusy: true})
	d := newDev(t, p, ssd1680.Opts{BusyTimeout: 3 * time.Second})
	start := p.Clock.Now()
	_, err := d.Draw(context.Background(), noise(1, 250, 122))
	if !errors.Is(err, ssd1680.ErrBusyTimeout) {
		t.Fatalf("Draw on a stuck panel: %v, want ErrBusyTimeout", err)
	}
	if waited := p.Clock.Now().Sub(start); waited < 3*time.Second || waited > 4*time.Second {
		t.Errorf("gave up after %v of panel time, want the 3s timeout", waited)
	}
	// The failure leaves the panel state unknown: the next frame starts over
	// with a reset (and times out again on this panel, rather than hanging).
	p.ResetLog()
	_, err = d.Draw(context.Background(), noise(1, 250, 122))
	if !errors.Is(err, ssd1680.ErrBusyTimeout) {
		t.Fatalf("second Draw: %v, want ErrBusyTimeout", err)
	}
	if log := p.Log(); len(log) == 0 || log[0] != "RST high" {
		t.Errorf("after a timeout the next Draw does not start with a reset: %q", log)
	}
}

// drawSending draws img (landscape, Rot0) with the refresh kind want,
// sending the panel exactly log, and checks the glass shows it.
func drawSending(t *testing.T, p *ssd1680test.Panel, d *ssd1680.Dev, img *image.Gray, want ssd1680.Refresh, log []string) {
	t.Helper()
	p.ResetLog()
	draw(t, d, img, want)
	if diff := cmp.Diff(log, p.Log()); diff != "" {
		t.Errorf("%s refresh (-want +got):\n%s", want, diff)
	}
	checkGlass(t, p, img, ssd1680.Rot0)
}

// cancelMidRefresh draws img with a context cancelled 100 ms (panel time)
// into the refresh, which leaves the panel half way through an update.
func cancelMidRefresh(t *testing.T, p *ssd1680test.Panel, d *ssd1680.Dev, img image.Image) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p.Clock.AfterFunc(100*time.Millisecond, cancel)
	if _, err := d.Draw(ctx, img); !errors.Is(err, context.Canceled) {
		t.Fatalf("Draw with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestCancelDuringRefreshForcesFullRedraw(t *testing.T) {
	t.Parallel()
	p := ssd1680test.New(ssd1680test.Options{})
	d := newDev(t, p, ssd1680.Opts{})
	draw(t, d, noise(1, 250, 122), ssd1680.RefreshFull)

	cancelMidRefresh(t, p, d, noise(2, 250, 122))
	drawSending(t, p, d, noise(3, 250, 122), ssd1680.RefreshFull, concat(wakeLog, fullLog))
	noViolations(t, p)
}

func TestRefreshPolicy(t *testing.T) {
	t.Parallel()
	type step struct {
		advance time.Duration // panel time passing before the frame
		frame   uint64        // seed of the frame's image
		want    ssd1680.Refresh
	}
	cases := []struct {
		name  string
		opts  ssd1680.Opts
		steps []step
	}{
		{
			name: "every third refresh is full",
			opts: ssd1680.Opts{FullEvery: 3, FullInterval: -1},
			steps: []step{
				{0, 1, ssd1680.RefreshFull}, {0, 2, ssd1680.RefreshPartial}, {0, 3, ssd1680.RefreshPartial},
				{0, 4, ssd1680.RefreshFull}, {0, 5, ssd1680.RefreshPartial},
			},
		},
		{
			name:  "always full",
			opts:  ssd1680.Opts{FullEvery: 1},
			steps: []step{{0, 1, ssd1680.RefreshFull}, {0, 2, ssd1680.RefreshFull}},
		},
		{
			name: "an identical frame is skipped and does not count",
			opts: ssd1680.Opts{FullEvery: 3},
			steps: []step{
				{0, 1, ssd1680.RefreshFull}, {0, 1, ssd1680.RefreshNone}, {0, 2, ssd1680.RefreshPartial},
				{0, 2, ssd1680.RefreshNone}, {0, 3, ssd1680.RefreshPartial}, {0, 4, ssd1680.RefreshFull},
			},
		},
		{
			name: "full after the interval",
			opts: ssd1680.Opts{FullEvery: -1, FullInterval: 10 * time.Minute},
			steps: []step{
				{0, 1, ssd1680.RefreshFull}, {5 * time.Minute, 2, ssd1680.RefreshPartial},
				{6 * time.Minute, 3, ssd1680.RefreshFull}, {time.Minute, 4, ssd1680.RefreshPartial},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := ssd1680test.New(ssd1680test.Options{})
			d := newDev(t, p, tc.opts)
			for i, s := range tc.steps {
				p.Clock.Advance(s.advance)
				got, err := d.Draw(context.Background(), noise(s.frame, 250, 122))
				if err != nil {
					t.Fatal(err)
				}
				if got != s.want {
					t.Errorf("step %d: %s refresh, want %s", i, got, s.want)
				}
			}
			noViolations(t, p)
		})
	}
}

func TestRotations(t *testing.T) {
	t.Parallel()
	for _, rot := range []ssd1680.Rotation{ssd1680.Rot0, ssd1680.Rot90, ssd1680.Rot180, ssd1680.Rot270} {
		t.Run(fmt.Sprint(int(rot)), func(t *testing.T) {
			t.Parallel()
			p := ssd1680test.New(ssd1680test.Options{})
			d := newDev(t, p, ssd1680.Opts{Rotation: rot})
			b := d.Bounds()
			img := noise(uint64(rot), b.Dx(), b.Dy())
			draw(t, d, img, ssd1680.RefreshFull)
			checkGlass(t, p, img, rot)
		})
	}
}

func TestChunkedTransfers(t *testing.T) {
	t.Parallel()
	p := ssd1680test.New(ssd1680test.Options{MaxTxSize: 1000})
	d := newDev(t, p, ssd1680.Opts{})
	img := noise(7, 250, 122)
	draw(t, d, img, ssd1680.RefreshFull)
	checkGlass(t, p, img, ssd1680.Rot0)
	chunks := 0
	for _, op := range p.Record.Ops {
		if len(op.W) > 1000 {
			t.Fatalf("a transfer of %d bytes, the port allows 1000", len(op.W))
		}
		if len(op.W) == 1000 {
			chunks++
		}
	}
	if chunks != 8 { // two RAMs of 4000 bytes
		t.Errorf("%d full 1000-byte chunks, want 8", chunks)
	}
	noViolations(t, p)
}

func TestCSAndPowerPins(t *testing.T) {
	t.Parallel()
	p := ssd1680test.New(ssd1680test.Options{CS: true, PWR: true})
	d := newDev(t, p, ssd1680.Opts{})
	draw(t, d, noise(1, 250, 122), ssd1680.RefreshFull)
	if err := d.Sleep(context.Background()); err != nil {
		t.Fatal(err)
	}
	draw(t, d, noise(2, 250, 122), ssd1680.RefreshPartial)
	want := concat(
		[]string{"PWR high"}, wakeLog, fullLog,
		sleepLog, []string{"RST low", "DC low", "PWR low"},
		[]string{"PWR high"}, wakeLog, partialLog,
	)
	// DC is not logged by the panel; drop it from the expectation.
	want = filter(want, "DC low")
	if diff := cmp.Diff(want, p.Log()); diff != "" {
		t.Errorf("command log (-want +got):\n%s", diff)
	}
	noViolations(t, p) // every transfer had CS low and power on
	var off time.Duration
	for _, e := range p.Edges() {
		if e.Pin == "PWR" && e.Level == gpio.Low {
			off = e.At
		}
	}
	if off == 0 {
		t.Error("PWR never went low in sleep")
	}
}

func filter(s []string, drop string) []string {
	var out []string
	for _, v := range s {
		if v != drop {
			out = append(out, v)
		}
	}
	return out
}

func TestSleepIsIdempotent(t *testing.T) {
	t.Parallel()
	p := ssd1680test.New(ssd1680test.Options{})
	d := newDev(t, p, ssd1680.Opts{})
	if err := d.Sleep(context.Background()); err != nil { // never woken: nothing to do
		t.Fatal(err)
	}
	draw(t, d, noise(1, 250, 122), ssd1680.RefreshFull)
	for range 2 {
		if err := d.Halt(); err != nil {
			t.Fatal(err)
		}
	}
	want := concat(wakeLog, fullLog, sleepLog)
	if diff := cmp.Diff(want, p.Log()); diff != "" {
		t.Errorf("command log (-want +got):\n%s", diff)
	}
}

func TestNewRejects(t *testing.T) {
	t.Parallel()
	p := ssd1680test.New(ssd1680test.Options{})
	pins := p.Pins()
	noBusy := pins
	noBusy.Busy = nil
	cases := []struct {
		name string
		pins ssd1680.Pins
		opts ssd1680.Opts
	}{
		{"missing BUSY", noBusy, ssd1680.Opts{}},
		{"odd rotation", pins, ssd1680.Opts{Rotation: 45}},
	}
	for _, tc := range cases {
		if _, err := ssd1680.New(ssd1680test.New(ssd1680test.Options{}), tc.pins, &tc.opts); err == nil {
			t.Errorf("%s: New succeeded", tc.name)
		}
	}
}

func TestDrawRejectsWrongSize(t *testing.T) {
	t.Parallel()
	p := ssd1680test.New(ssd1680test.Options{})
	d := newDev(t, p, ssd1680.Opts{})
	if _, err := d.Draw(context.Background(), noise(1, 122, 250)); err == nil {
		t.Error("Draw of a portrait image on a landscape panel succeeded")
	}
	if len(p.Record.Ops) != 0 {
		t.Errorf("a rejected frame reached the panel: %d transfers", len(p.Record.Ops))
	}
}
