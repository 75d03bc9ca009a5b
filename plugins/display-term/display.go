package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/axonhq/axon/hardware/facerender"
	"github.com/axonhq/axon/sdk"
)

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
	{Name: "clear", Type: "bool", Default: json.RawMessage(`true`), Description: "redraw each frame in place: on a terminal, pinned to its bottom rows with the log scrolling above; in a file, after a clear-screen sequence"},
}}

type termDisplay struct {
	mu       sync.Mutex
	cfg      config
	out      *os.File
	terminal bool // out is a terminal: the face can be pinned
	pinned   *pin // the face's rows on the terminal, while they are held
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
		return sdk.Permanentf("term: open %s: %v%s", c.TTY, err, openHint(c.TTY, err))
	}
	_, _, terminal := terminalSize(out)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closeLocked()
	d.cfg, d.out, d.terminal = c, out, terminal
	return nil
}

// openHint says how to give the plugin somewhere to draw, after the error
// opening path.
func openHint(path string, err error) string {
	switch {
	case path == "/dev/tty" && errors.Is(err, fs.ErrNotExist):
		return `: the sandbox shows a plugin only what its block grants; to draw on the terminal axon runs in, add grant { devices = ["/dev/tty"] } to this block`
	case errors.Is(err, syscall.ENXIO):
		return ": axon has no terminal (it was not started from one, as under systemd): set tty to a file and grant its directory (grant { read_write = [...] }), or to a terminal device and grant that (grant { devices = [...] })"
	}
	return ": set tty to a terminal device or a file this block grants (grant { devices = [...] } or grant { read_write = [...] })"
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
	text, pinned := d.render(d.frame(f))
	if _, err := d.out.WriteString(text); err != nil {
		return sdk.Transientf("term: write %s: %v", d.cfg.TTY, err)
	}
	d.pinned = pinned
	return nil
}

// render is what Show writes for fr, and the rows it holds afterwards.
// With clear on, a terminal that has room gets the face pinned to its
// bottom rows (the region is set on the first frame, and again when the
// terminal's size changed); anything else gets the frame as a block of
// text after a clear-screen sequence (clear) or a blank line.
func (d *termDisplay) render(fr frame) (string, *pin) {
	var sb strings.Builder
	if d.terminal && d.cfg.Clear {
		want := pin{height: len(fr.face) + textLines + 1}
		want.rows, want.cols, _ = terminalSize(d.out)
		if d.pinned != nil && *d.pinned != want {
			sb.WriteString(d.pinned.release())
		}
		if want.fits(d.cfg.Width) {
			if d.pinned == nil || *d.pinned != want {
				sb.WriteString(want.setup())
			}
			sb.WriteString(want.draw(fr.rows(true)))
			return sb.String(), &want
		}
	}
	if d.cfg.Clear {
		sb.WriteString(clearScreen)
	} else {
		sb.WriteString("\n")
	}
	for _, l := range fr.rows(false) {
		sb.WriteString(l + "\n")
	}
	return sb.String(), nil
}

// frame is a frame as lines of text: the face in half blocks, then its
// text and status line as plain text under it.
type frame struct {
	face   []string
	text   []string // at most textLines
	status string
}

func (d *termDisplay) frame(f sdk.Frame) frame {
	img := facerender.NewImage(d.cfg.Width, d.cfg.Height)
	facerender.DrawFace(img, img.Rect, f.Expression)
	fr := frame{face: halfBlocks(img)}
	text := f.Text
	if strings.TrimSpace(text) == "" && f.Expression == sdk.ExprDegraded {
		text = facerender.DegradedText
	}
	fr.text = wrapText(text, d.cfg.Width, textLines)
	if l := wrapText(facerender.StatusLine(f.Status), d.cfg.Width, 1); len(l) > 0 {
		fr.status = l[0]
	}
	return fr
}

// rows lists the frame's lines; full ones keep the empty text and status
// lines too, so that every frame takes the same rows.
func (fr frame) rows(full bool) []string {
	rows := append(append([]string{}, fr.face...), fr.text...)
	if full {
		rows = append(rows, make([]string, textLines-len(fr.text))...)
	}
	if full || fr.status != "" {
		rows = append(rows, fr.status)
	}
	return rows
}

// Halt gives a pinned face's rows back to the log, erased; otherwise it
// clears the screen when clear is on. The next Show pins the face again.
func (d *termDisplay) Halt(context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var text string
	switch {
	case d.out == nil:
		return nil
	case d.pinned != nil:
		text = d.pinned.release()
	case d.cfg.Clear:
		text = clearScreen
	default:
		return nil
	}
	if _, err := d.out.WriteString(text); err != nil {
		return sdk.Transientf("term: write %s: %v", d.cfg.TTY, err)
	}
	d.pinned = nil
	return nil
}

// Close gives a pinned face's rows back and releases the terminal.
func (d *termDisplay) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closeLocked()
}

func (d *termDisplay) closeLocked() error {
	if d.out == nil {
		return nil
	}
	if d.pinned != nil {
		d.out.WriteString(d.pinned.release()) // best effort: the terminal may be gone
		d.pinned = nil
	}
	err := d.out.Close()
	d.out = nil
	if err != nil {
		return fmt.Errorf("term: close %s: %w", d.cfg.TTY, err)
	}
	return nil
}
