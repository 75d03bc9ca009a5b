package sdktest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// DisplaySuite describes a display plugin to DisplayConformance.
type DisplaySuite struct {
	New    func() sdk.Display
	Config json.RawMessage
}

// DisplayConformance runs the checks every display plugin must pass: Info is
// well formed; Caps are sane; every expression shows, with and without text
// and status, including text far too long for the panel; Show works again
// after Halt; Halt twice is harmless.
func DisplayConformance(t *testing.T, s DisplaySuite) {
	t.Helper()
	conn := Serve(t, sdk.KindDisplay, s.New(), s.Config, nil)
	t.Run("info", func(t *testing.T) { checkInfo(t, sdk.KindDisplay, conn.Info) })
	d := conn.Display(t)
	ctx := context.Background()

	caps, err := d.Caps(ctx)
	if err != nil {
		t.Fatalf("Caps: %v", err)
	}
	if caps.Width < 0 || caps.Height < 0 || (caps.Width == 0) != (caps.Height == 0) {
		t.Errorf("Caps %dx%d: width and height must both be positive (or both 0 for text displays)", caps.Width, caps.Height)
	}
	frames := []sdk.Frame{}
	for _, e := range sdk.Expressions {
		frames = append(frames, sdk.Frame{Expression: e})
		frames = append(frames, sdk.Frame{Expression: e, Text: "hello from " + string(e), Status: map[string]string{"chain": "default"}})
	}
	frames = append(frames, sdk.Frame{Expression: sdk.ExprSpeaking, Text: strings.Repeat("a very long line of text ", 40)})
	for _, f := range frames {
		if err := d.Show(ctx, f); err != nil {
			t.Errorf("Show(%s, %d chars): %v", f.Expression, len(f.Text), err)
		}
	}
	if err := d.Halt(ctx); err != nil {
		t.Fatalf("Halt: %v", err)
	}
	if err := d.Halt(ctx); err != nil {
		t.Errorf("second Halt: %v", err)
	}
	if err := d.Show(ctx, sdk.Frame{Expression: sdk.ExprIdle, Text: "awake again"}); err != nil {
		t.Errorf("Show after Halt: %v", err)
	}
}
