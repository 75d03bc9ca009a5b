package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"periph.io/x/conn/v3/spi"

	"github.com/axonhq/axon/hardware/facerender"
	"github.com/axonhq/axon/hardware/ssd1680"
	"github.com/axonhq/axon/hardware/ssd1680/ssd1680test"
	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// fakeBoard hands out a fake panel and remembers the configuration it was
// opened with.
type fakeBoard struct {
	panel  *ssd1680test.Panel
	err    error
	opened *config
}

func (b *fakeBoard) Open(c config) (spi.PortCloser, ssd1680.Pins, error) {
	b.opened = &c
	if b.err != nil {
		return nil, ssd1680.Pins{}, b.err
	}
	return b.panel, b.panel.Pins(), nil
}

func newTestEPD(t *testing.T, opts ssd1680test.Options, values string) (*epd, *ssd1680test.Panel, *fakeBoard) {
	t.Helper()
	p := ssd1680test.New(opts)
	b := &fakeBoard{panel: p}
	e := newEPD(b, p.Clock)
	if err := configure(e, values); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e, p, b
}

func configure(e *epd, values string) error {
	full, err := sdktest.ApplyDefaults(e.Info().Config, json.RawMessage(values))
	if err != nil {
		return err
	}
	return e.Configure(context.Background(), sdk.Config{Values: full})
}

func TestConformance(t *testing.T) {
	p := ssd1680test.New(ssd1680test.Options{})
	sdktest.DisplayConformance(t, sdktest.DisplaySuite{
		New: func() sdk.Display { return newEPD(&fakeBoard{panel: p}, p.Clock) },
	})
	if v := p.Violations(); len(v) > 0 {
		t.Errorf("protocol violations: %q", v)
	}
	if len(p.Refreshes()) == 0 {
		t.Error("the conformance run never refreshed the panel")
	}
}

// TestShowDrivesThePanel follows a turn on the pet: thinking, speaking,
// happy, a Halt between turns, then idle. Each frame must reach the glass as
// the renderer drew it, with the refresh kinds the policy promises.
func TestShowDrivesThePanel(t *testing.T) {
	t.Parallel()
	e, p, _ := newTestEPD(t, ssd1680test.Options{}, `{"full_refresh_every": 3}`)
	ctx := context.Background()
	status := map[string]string{"chain": "default", "provider": "glm"}
	frames := []sdk.Frame{
		{Expression: sdk.ExprThinking, Status: status},
		{Expression: sdk.ExprSpeaking, Text: "Paris is the capital of France.", Status: status},
		{Expression: sdk.ExprHappy, Text: "Paris is the capital of France.", Status: status},
		{Expression: sdk.ExprIdle},
	}
	for i, f := range frames {
		if i == 3 {
			if err := e.Halt(ctx); err != nil {
				t.Fatal(err)
			}
			if !p.Asleep() {
				t.Fatal("panel not asleep after Halt")
			}
		}
		if err := e.Show(ctx, f); err != nil {
			t.Fatalf("Show(%s): %v", f.Expression, err)
		}
	}

	r, err := facerender.NewRenderer()
	if err != nil {
		t.Fatal(err)
	}
	refreshes := p.Refreshes()
	var kinds []string
	for i, rf := range refreshes {
		kinds = append(kinds, rf.Kind)
		img, err := r.Render(frames[i], 250, 122)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]byte, ssd1680.FrameBytes)
		if err := ssd1680.Pack(want, img, ssd1680.Rot0); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, rf.Frame) {
			t.Errorf("refresh %d: the glass does not show the rendered %s frame", i, frames[i].Expression)
		}
	}
	if diff := cmp.Diff([]string{"full", "partial", "partial", "full"}, kinds); diff != "" {
		t.Errorf("refresh kinds (-want +got):\n%s", diff)
	}
	if v := p.Violations(); len(v) > 0 {
		t.Errorf("protocol violations: %q", v)
	}
}

func TestStuckPanelFailsTheFrame(t *testing.T) {
	t.Parallel()
	e, _, _ := newTestEPD(t, ssd1680test.Options{StuckBusy: true}, `{"busy_timeout": "2s"}`)
	err := e.Show(context.Background(), sdk.Frame{Expression: sdk.ExprIdle})
	if !errors.Is(err, sdk.ErrTransient) {
		t.Fatalf("Show on a stuck panel: %v, want a transient error", err)
	}
	if !strings.Contains(err.Error(), "BUSY") {
		t.Errorf("error %q does not say what is wrong", err)
	}
}

func TestConfigure(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		values  string
		openErr error
		wantErr string // "" for success
	}{
		{"defaults", `{}`, nil, ""},
		{"all pins", `{"cs_pin": "GPIO8", "power_pin": "GPIO18", "rotate": 180, "panel": "v3"}`, nil, ""},
		{"old panel", `{"panel": "v2"}`, nil, "other controllers"},
		{"bad rotation", `{"rotate": 45}`, nil, "rotate 45"},
		{"bad duration", `{"busy_timeout": "soon"}`, nil, "busy_timeout"},
		{"zero busy timeout", `{"busy_timeout": "0s"}`, nil, "must be positive"},
		{"zero full_refresh_every", `{"full_refresh_every": 0}`, nil, "full_refresh_every"},
		{"empty pin", `{"dc_pin": ""}`, nil, "dc_pin"},
		{"no hardware", `{}`, errors.New(`spi_port "SPI0.0": no port found`), "no port found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := ssd1680test.New(ssd1680test.Options{})
			e := newEPD(&fakeBoard{panel: p, err: tc.openErr}, p.Clock)
			err := configure(e, tc.values)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Configure: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Configure = %v, want an error about %q", err, tc.wantErr)
			}
			if !errors.Is(err, sdk.ErrPermanent) {
				t.Errorf("Configure = %v, want a permanent error", err)
			}
		})
	}
}

func TestBoardGetsTheConfiguredNames(t *testing.T) {
	t.Parallel()
	_, _, b := newTestEPD(t, ssd1680test.Options{}, `{"spi_port": "SPI1.0", "cs_pin": "GPIO7", "power_pin": "GPIO18"}`)
	want := config{
		Panel: "v4", SPIPort: "SPI1.0", DCPin: "GPIO25", RSTPin: "GPIO17", BusyPin: "GPIO24",
		CSPin: "GPIO7", PowerPin: "GPIO18", FullRefreshEvery: 20, FullRefreshInterval: "1h", BusyTimeout: "10s",
	}
	if diff := cmp.Diff(&want, b.opened); diff != "" {
		t.Errorf("board opened with (-want +got):\n%s", diff)
	}
}

func TestCaps(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rotate string
		want   sdk.DisplayCaps
	}{
		{`{}`, sdk.DisplayCaps{Width: 250, Height: 122, Mono: true, MinIntervalMS: minIntervalMS}},
		{`{"rotate": 90}`, sdk.DisplayCaps{Width: 122, Height: 250, Mono: true, MinIntervalMS: minIntervalMS}},
	} {
		e, _, _ := newTestEPD(t, ssd1680test.Options{}, tc.rotate)
		got, err := e.Caps(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Caps with %s (-want +got):\n%s", tc.rotate, diff)
		}
	}
}

func TestConfigureTwiceIsRefused(t *testing.T) {
	t.Parallel()
	e, p, _ := newTestEPD(t, ssd1680test.Options{}, `{}`)
	if err := configure(e, `{}`); err == nil {
		t.Fatal("second Configure succeeded")
	}
	if err := e.Show(context.Background(), sdk.Frame{Expression: sdk.ExprIdle}); err != nil {
		t.Fatalf("Show after a refused Configure: %v", err)
	}
	if len(p.Refreshes()) != 1 {
		t.Errorf("%d refreshes, want the panel still driven by the first configuration", len(p.Refreshes()))
	}
}
