package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/go-hclog"
	"periph.io/x/conn/v3/spi"

	"github.com/axonhq/axon/hardware/facerender"
	"github.com/axonhq/axon/hardware/ssd1680"
	"github.com/axonhq/axon/sdk"
)

// minIntervalMS is the frame spacing the panel asks the host for: a full
// refresh takes about 2 s, a partial one 0.3 s, and a face that changes
// faster than every two seconds cannot be read anyway.
const minIntervalMS = 2000

// epd is the display. It opens hardware only in Configure, through board.
type epd struct {
	board board
	clock ssd1680.Clock

	mu     sync.Mutex // one frame at a time: the panel is a single device
	log    hclog.Logger
	port   spi.PortCloser
	dev    *ssd1680.Dev
	render *facerender.Renderer
	rot    ssd1680.Rotation
	panel  string // the configured revision, which the state file names
	state  string // the state file, "" for none (glass.go)
}

var (
	_ sdk.Display = (*epd)(nil)
	_ sdk.Closer  = (*epd)(nil)
)

func newEPD(b board, clock ssd1680.Clock) *epd {
	return &epd{board: b, clock: clock, log: hclog.NewNullLogger()}
}

func (e *epd) Info() sdk.Info {
	return sdk.Info{Name: "epd", Kind: sdk.KindDisplay, Version: version, Config: schema}
}

func (e *epd) Configure(ctx context.Context, cfg sdk.Config) error {
	e.mu.Lock()
	configured := e.dev != nil
	e.mu.Unlock()
	if configured {
		// The panel is one device: a second Configure would open it twice.
		return sdk.Permanentf("epd: already configured")
	}
	var c config
	if err := cfg.Decode(&c); err != nil {
		return err
	}
	opts, err := c.driverOpts()
	if err != nil {
		return sdk.Permanentf("epd: %v", err)
	}
	opts.Clock = e.clock
	r, err := facerender.NewRenderer()
	if err != nil {
		return sdk.Permanentf("epd: %v", err)
	}
	port, pins, err := e.board.Open(c)
	if err != nil {
		return sdk.Permanentf("epd: %v", err)
	}
	dev, err := ssd1680.New(port, pins, &opts)
	if err != nil {
		port.Close()
		return sdk.Permanentf("epd: %v", err)
	}
	log := e.log
	if cfg.Logger != nil {
		log = cfg.Logger
	}
	if c.StateFile != "" {
		if err := checkStateDir(c.StateFile); err != nil {
			port.Close()
			return sdk.Permanentf("epd: %v", err)
		}
		resume(log, dev, c.StateFile, c.Panel)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.log = log
	e.port, e.dev, e.render, e.rot, e.panel, e.state = port, dev, r, opts.Rotation, c.Panel, c.StateFile
	e.log.Info("panel ready", "panel", c.Panel, "spi_port", c.SPIPort, "rotate", c.Rotate, "size", dev.Bounds().Size())
	return nil
}

// resume hands dev what the previous process left on the glass, if its
// state file says; otherwise the first frame is a full refresh.
func resume(log hclog.Logger, dev *ssd1680.Dev, path, panel string) {
	g, ok, err := takeGlass(path, panel)
	if err == nil && ok {
		err = dev.Resume(g)
	}
	switch {
	case err != nil:
		log.Warn("state file not used; the first frame is a full refresh", "state_file", path, "error", err)
	case ok:
		log.Info("resumed the frame on the glass; the first frame is partial unless a full refresh is due", "state_file", path)
	}
}

func (e *epd) Caps(context.Context) (sdk.DisplayCaps, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b := e.rot.Bounds()
	return sdk.DisplayCaps{Width: b.Dx(), Height: b.Dy(), Mono: true, MinIntervalMS: minIntervalMS}, nil
}

// Show renders f and puts it on the panel. It returns once the panel has
// finished the refresh.
func (e *epd) Show(ctx context.Context, f sdk.Frame) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dev == nil {
		return sdk.Permanentf("epd: Show before Configure")
	}
	b := e.dev.Bounds()
	img, err := e.render.Render(f, b.Dx(), b.Dy())
	if err != nil {
		return sdk.Permanentf("epd: %v", err)
	}
	kind, err := e.dev.Draw(ctx, img)
	if err != nil {
		return e.failed("show "+string(f.Expression), err)
	}
	e.log.Debug("frame", "expression", f.Expression, "refresh", kind)
	return nil
}

// Halt puts the panel into deep sleep; the face stays on the glass.
func (e *epd) Halt(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dev == nil {
		return nil
	}
	if err := e.dev.Sleep(ctx); err != nil {
		return e.failed("sleep", err)
	}
	return nil
}

// Close keeps the frame on the glass in the state file, when there is one,
// sleeps the panel and releases the SPI port.
func (e *epd) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dev == nil {
		return nil
	}
	// Written before the sleep: sleeping leaves the glass as it is, and a
	// power pin's 2 s wait may outlast the host's patience with a stopping
	// plugin.
	if g, ok := e.dev.Glass(); ok && e.state != "" {
		if err := saveGlass(e.state, e.panel, g); err != nil {
			e.log.Warn("state file not written; the next process starts with a full refresh", "state_file", e.state, "error", err)
		}
	}
	err := e.dev.Halt()
	if cerr := e.port.Close(); err == nil {
		err = cerr
	}
	e.dev, e.port = nil, nil
	return err
}

// failed classifies a driver error. A stuck BUSY is usually wiring or
// power; the driver resets the panel on the next frame, so every failure is
// worth retrying.
func (e *epd) failed(what string, err error) error {
	e.log.Warn("panel error", "op", what, "error", err)
	switch {
	case errors.Is(err, ssd1680.ErrBusyTimeout):
		return sdk.Transientf("epd: %s: the panel kept BUSY high (%v); check wiring, and power_pin on HATs that have one", what, err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("epd: %s: %w", what, err)
	}
	return sdk.Transientf("epd: %s: %v", what, err)
}
