package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"sync"

	"github.com/axonhq/axon/hardware/facerender"
	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/atomicfile"
)

type config struct {
	Dir     string `json:"dir"`
	Width   int    `json:"width"`
	Height  int    `json:"height"`
	KeepAll bool   `json:"keep_all"`
}

var schema = sdk.Schema{Attributes: []sdk.Attribute{
	{Name: "dir", Type: "path", Required: true, Description: "directory the PNG files go to; created if missing"},
	{Name: "width", Type: "number", Default: json.RawMessage(`250`), Description: "image width in pixels"},
	{Name: "height", Type: "number", Default: json.RawMessage(`122`), Description: "image height in pixels"},
	{Name: "keep_all", Type: "bool", Default: json.RawMessage(`false`), Description: "keep every frame as frame-NNNNNN-<expression>.png instead of replacing latest.png"},
}}

type pngDisplay struct {
	mu     sync.Mutex
	cfg    config
	render *facerender.Renderer
	seq    int // number of the last frame written
}

var _ sdk.Display = (*pngDisplay)(nil)

func newPNGDisplay() *pngDisplay { return &pngDisplay{} }

func (d *pngDisplay) Info() sdk.Info {
	return sdk.Info{Name: "png", Kind: sdk.KindDisplay, Version: version, Config: schema}
}

func (d *pngDisplay) Configure(_ context.Context, cfg sdk.Config) error {
	var c config
	if err := cfg.Decode(&c); err != nil {
		return err
	}
	if c.Dir == "" {
		return sdk.Permanentf("png: dir must not be empty")
	}
	if c.Width < facerender.MinSize || c.Height < facerender.MinSize || c.Width > facerender.MaxSize || c.Height > facerender.MaxSize {
		return sdk.Permanentf("png: size %dx%d: width and height must be between %d and %d", c.Width, c.Height, facerender.MinSize, facerender.MaxSize)
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return sdk.Permanentf("png: %v", err)
	}
	last, err := lastFrame(c.Dir)
	if err != nil {
		return sdk.Permanentf("png: %v", err)
	}
	r, err := facerender.NewRenderer()
	if err != nil {
		return sdk.Permanentf("png: %v", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cfg, d.render, d.seq = c, r, last
	return nil
}

func (d *pngDisplay) Caps(context.Context) (sdk.DisplayCaps, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return sdk.DisplayCaps{Width: d.cfg.Width, Height: d.cfg.Height, Mono: true}, nil
}

// Show renders f and writes it. It returns once the file is in place.
func (d *pngDisplay) Show(ctx context.Context, f sdk.Frame) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.render == nil {
		return sdk.Permanentf("png: Show before Configure")
	}
	img, err := d.render.Render(f, d.cfg.Width, d.cfg.Height)
	if err != nil {
		return sdk.Permanentf("png: %v", err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return sdk.Permanentf("png: encode: %v", err)
	}
	name := latestName
	if d.cfg.KeepAll {
		name = frameName(d.seq+1, f.Expression)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(d.cfg.Dir, name), buf.Bytes(), 0o644, false); err != nil {
		return sdk.Transientf("png: %v", err)
	}
	if d.cfg.KeepAll {
		d.seq++
	}
	return nil
}

// Halt does nothing: the last frame stays, as on E-Ink.
func (d *pngDisplay) Halt(context.Context) error { return nil }
