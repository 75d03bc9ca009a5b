package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/axonhq/axon/hardware/facerender"
	"github.com/axonhq/axon/sdk"
)

// clearScreen moves the cursor home and clears the screen (ANSI).
const clearScreen = "\x1b[H\x1b[2J"

// textLines is how many lines of frame text are shown under the face.
const textLines = 3

type config struct {
	TTY    string `json:"tty"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Clear  bool   `json:"clear"`
}

var schema = sdk.Schema{Attributes: []sdk.Attribute{
	{Name: "tty", Type: "path", Default: json.RawMessage(`"/dev/tty"`), Description: "terminal device or file to draw on (never the plugin's stdout)"},
	{Name: "width", Type: "number", Default: json.RawMessage(`64`), Description: "face width in pixels = terminal columns"},
	{Name: "height", Type: "number", Default: json.RawMessage(`40`), Description: "face height in pixels = twice the terminal rows"},
	{Name: "clear", Type: "bool", Default: json.RawMessage(`true`), Description: "clear the screen before each frame"},
}}

type termDisplay struct {
	mu  sync.Mutex
	cfg config
	out *os.File
}

var (
	_ sdk.Display = (*termDisplay)(nil)
	_ sdk.Closer  = (*termDisplay)(nil)
)

func newTermDisplay() *termDisplay { return &termDisplay{} }

func (d *termDisplay) Info() sdk.Info {
	return sdk.Info{Name: "term", Kind: sdk.KindDisplay, Version: version, Config: schema}
}

func (d *termDisplay) Configure(_ context.Context, cfg sdk.Config) error {
	var c config
	if err := cfg.Decode(&c); err != nil {
		return err
	}
	if c.TTY == "" {
		return sdk.Permanentf("term: tty must not be empty")
	}
	if c.Width < facerender.MinSize || c.Height < facerender.MinSize || c.Width > 1000 || c.Height > 1000 {
		return sdk.Permanentf("term: size %dx%d: width and height must be between %d and 1000", c.Width, c.Height, facerender.MinSize)
	}
	out, err := os.OpenFile(c.TTY, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return sdk.Permanentf("term: open %s: %v (a plugin has no terminal of its own: set tty to the host's terminal or a file)", c.TTY, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.out != nil {
		d.out.Close()
	}
	d.cfg, d.out = c, out
	return nil
}

func (d *termDisplay) Caps(context.Context) (sdk.DisplayCaps, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return sdk.DisplayCaps{Width: d.cfg.Width, Height: d.cfg.Height, Mono: true}, nil
}

// Show draws f as one write, so a terminal never shows half a frame from
// this plugin.
func (d *termDisplay) Show(_ context.Context, f sdk.Frame) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.out == nil {
		return sdk.Permanentf("term: Show before Configure")
	}
	if _, err := d.out.WriteString(d.frameText(f)); err != nil {
		return sdk.Transientf("term: write %s: %v", d.cfg.TTY, err)
	}
	return nil
}

// frameText is what Show writes for f.
func (d *termDisplay) frameText(f sdk.Frame) string {
	img := facerender.NewImage(d.cfg.Width, d.cfg.Height)
	facerender.DrawFace(img, img.Rect, f.Expression)
	var sb strings.Builder
	if d.cfg.Clear {
		sb.WriteString(clearScreen)
	} else {
		sb.WriteString("\n")
	}
	for _, row := range halfBlocks(img) {
		sb.WriteString(row + "\n")
	}
	text := f.Text
	if strings.TrimSpace(text) == "" && f.Expression == sdk.ExprDegraded {
		text = facerender.DegradedText
	}
	for _, l := range wrapText(text, d.cfg.Width, textLines) {
		sb.WriteString(l + "\n")
	}
	if s := facerender.StatusLine(f.Status); s != "" {
		for _, l := range wrapText(s, d.cfg.Width, 1) {
			sb.WriteString(l + "\n")
		}
	}
	return sb.String()
}

// Halt clears the screen when clear is on.
func (d *termDisplay) Halt(context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.out == nil || !d.cfg.Clear {
		return nil
	}
	if _, err := d.out.WriteString(clearScreen); err != nil {
		return sdk.Transientf("term: write %s: %v", d.cfg.TTY, err)
	}
	return nil
}

// Close releases the terminal.
func (d *termDisplay) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.out == nil {
		return nil
	}
	err := d.out.Close()
	d.out = nil
	if err != nil {
		return fmt.Errorf("term: close %s: %w", d.cfg.TTY, err)
	}
	return nil
}
