package ssd1680

import (
	"context"
	"errors"
	"fmt"
	"image"
	"time"

	"periph.io/x/conn/v3"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
)

// ErrBusyTimeout is returned (wrapped) when the panel holds BUSY high longer
// than Opts.BusyTimeout: a disconnected, unpowered or wedged panel.
var ErrBusyTimeout = errors.New("ssd1680: BUSY stayed high")

// Pins connects the controller. DC, RST and Busy are required.
type Pins struct {
	DC   gpio.PinOut // low: command, high: data
	RST  gpio.PinOut // active low
	Busy gpio.PinIn  // high while the controller works
	// CS is driven low around each transfer when set. Leave it nil when the
	// SPI port drives chip select itself (spidev's CE0 on a Pi).
	CS gpio.PinOut
	// PWR switches the panel's supply on HATs that have one (GPIO18 on the
	// Waveshare e-Paper Driver HAT rev 2.3): high while awake, low in sleep.
	PWR gpio.PinOut
}

// Opts tunes a Dev; the zero value of each field takes the default.
type Opts struct {
	Rotation Rotation
	// Speed is the SPI clock; default 4 MHz, periph's and Waveshare's choice.
	Speed physic.Frequency
	// BusyTimeout bounds every wait on BUSY; default 10 s. A full refresh
	// takes about 2 s at room temperature and longer in the cold.
	BusyTimeout time.Duration
	// BusyPoll is the BUSY polling period; default 10 ms.
	BusyPoll time.Duration
	// FullEvery makes every FullEvery-th refresh a full one (1: always full,
	// <0: only on start and by FullInterval); default 20. The rest are
	// partial. Partial refreshes leave ghosts that a full one clears.
	FullEvery int
	// FullInterval forces a full refresh when the last one is older; default
	// 1 h, <0 disables. Waveshare asks for at least one full refresh a day.
	FullInterval time.Duration
	// Clock defaults to the system clock.
	Clock Clock
}

func (o Opts) withDefaults() Opts {
	if o.Speed == 0 {
		o.Speed = 4 * physic.MegaHertz
	}
	if o.BusyTimeout == 0 {
		o.BusyTimeout = 10 * time.Second
	}
	if o.BusyPoll == 0 {
		o.BusyPoll = 10 * time.Millisecond
	}
	if o.FullEvery == 0 {
		o.FullEvery = 20
	}
	if o.FullInterval == 0 {
		o.FullInterval = time.Hour
	}
	if o.Clock == nil {
		o.Clock = SystemClock{}
	}
	return o
}

// Stats counts what a Dev did, for logs and tests.
type Stats struct {
	Full, Partial, Skipped int   // refreshes, and identical frames not sent
	Bytes                  int64 // bytes written over SPI, commands included
	Transfers              int   // SPI Tx calls
}

// Dev is one SSD1680 panel. It is not safe for concurrent use.
type Dev struct {
	conn  spi.Conn
	pins  Pins
	opts  Opts
	maxTx int

	awake     bool      // initialised and not in deep sleep
	shown     []byte    // the frame on the glass, packed; nil before the first refresh
	next      []byte    // scratch for the frame being drawn
	sinceFull int       // refreshes since the last full one
	lastFull  time.Time // when the last full refresh finished
	dirty     bool      // a sequence failed half way: re-init and refresh fully
	stats     Stats
}

// New connects to port and configures the pins. It does not touch the panel:
// the first Draw or Full initialises it.
func New(port spi.Port, pins Pins, opts *Opts) (*Dev, error) {
	if pins.DC == nil || pins.RST == nil || pins.Busy == nil {
		return nil, errors.New("ssd1680: DC, RST and BUSY pins are required")
	}
	var o Opts
	if opts != nil {
		o = *opts
	}
	o = o.withDefaults()
	if err := o.Rotation.Valid(); err != nil {
		return nil, err
	}
	c, err := port.Connect(o.Speed, spi.Mode0, 8)
	if err != nil {
		return nil, fmt.Errorf("ssd1680: connect %s: %w", port, err)
	}
	if err := pins.Busy.In(gpio.PullNoChange, gpio.NoEdge); err != nil {
		return nil, fmt.Errorf("ssd1680: BUSY pin %s: %w", pins.Busy, err)
	}
	maxTx := 4096 // spidev's default bufsiz
	if l, ok := c.(conn.Limits); ok && l.MaxTxSize() > 0 {
		maxTx = l.MaxTxSize()
	}
	return &Dev{conn: c, pins: pins, opts: o, maxTx: maxTx, next: make([]byte, FrameBytes)}, nil
}

// String implements conn.Resource.
func (d *Dev) String() string { return fmt.Sprintf("ssd1680{%s}", d.conn) }

// Bounds is the size of the images Draw takes.
func (d *Dev) Bounds() image.Rectangle { return d.opts.Rotation.Bounds() }

// Stats returns the counters so far.
func (d *Dev) Stats() Stats { return d.stats }

// Halt implements conn.Resource: it puts the panel into deep sleep, waiting at
// most the BUSY timeout. The image stays on the glass.
func (d *Dev) Halt() error {
	ctx, cancel := context.WithTimeout(context.Background(), d.opts.BusyTimeout+5*time.Second)
	defer cancel()
	return d.Sleep(ctx)
}

var _ conn.Resource = (*Dev)(nil)

// init wakes the panel: power, hardware reset, software reset, and the
// configuration every refresh relies on.
func (d *Dev) init(ctx context.Context) error {
	if d.pins.PWR != nil {
		if err := d.pins.PWR.Out(gpio.High); err != nil {
			return fmt.Errorf("ssd1680: PWR on: %w", err)
		}
	}
	if err := d.reset(ctx, 20*time.Millisecond, 2*time.Millisecond, 20*time.Millisecond); err != nil {
		return err
	}
	if err := d.waitBusy(ctx, "reset"); err != nil {
		return err
	}
	if err := d.commands([]byte{cmdSoftwareReset}); err != nil {
		return err
	}
	if err := d.waitBusy(ctx, "software reset"); err != nil {
		return err
	}
	if err := d.configure(borderFull); err != nil {
		return err
	}
	if err := d.commands(
		[]byte{cmdUpdateControl1, updateControlNormal, updateControlSources},
		[]byte{cmdTempSensor, tempSensorInternal},
	); err != nil {
		return err
	}
	if err := d.waitBusy(ctx, "init"); err != nil {
		return err
	}
	d.awake = true
	return nil
}

// configure sets what both refresh kinds need: gates, address order, the RAM
// window (the whole panel) and the border waveform. writeRAM sets the cursor.
func (d *Dev) configure(border byte) error {
	return d.commands(
		[]byte{cmdDriverOutput, lastGateLo, lastGateHi, 0x00},
		[]byte{cmdDataEntryMode, dataEntryXIncYInc},
		[]byte{cmdRAMXRange, 0x00, RowBytes - 1},
		[]byte{cmdRAMYRange, 0x00, 0x00, lastGateLo, lastGateHi},
		[]byte{cmdBorderWaveform, border},
	)
}

// reset pulses RST: high for before, low for low, high for after.
func (d *Dev) reset(ctx context.Context, before, low, after time.Duration) error {
	for _, step := range []struct {
		l gpio.Level
		d time.Duration
	}{{gpio.High, before}, {gpio.Low, low}, {gpio.High, after}} {
		if step.d == 0 {
			continue
		}
		if err := d.pins.RST.Out(step.l); err != nil {
			return fmt.Errorf("ssd1680: RST %s: %w", step.l, err)
		}
		if err := d.opts.Clock.Sleep(ctx, step.d); err != nil {
			return fmt.Errorf("ssd1680: reset: %w", err)
		}
	}
	return nil
}

// full writes frame to both RAMs (so the next partial refresh has the right
// reference) and runs a full refresh: about 2 s with the black-white flashes.
func (d *Dev) full(ctx context.Context, frame []byte) error {
	if err := d.writeRAM(cmdWriteBlackRAM, frame); err != nil {
		return err
	}
	if err := d.writeRAM(cmdWriteRedRAM, frame); err != nil {
		return err
	}
	return d.activate(ctx, sequenceFull, "full refresh")
}

// partial runs a partial refresh from prev (RAM 0x26) to frame (RAM 0x24):
// about 0.3 s, no flash. The short RST pulse and the partial border
// waveform follow Waveshare's displayPartial.
func (d *Dev) partial(ctx context.Context, prev, frame []byte) error {
	if err := d.reset(ctx, 0, time.Millisecond, time.Millisecond); err != nil {
		return err
	}
	if err := d.configure(borderPartial); err != nil {
		return err
	}
	if err := d.writeRAM(cmdWriteRedRAM, prev); err != nil {
		return err
	}
	if err := d.writeRAM(cmdWriteBlackRAM, frame); err != nil {
		return err
	}
	return d.activate(ctx, sequencePartial, "partial refresh")
}

// sleep puts the controller into deep sleep (RAM kept) and, with a PWR pin,
// switches the panel off after the 2 s Waveshare waits, with RST and DC low
// so no pin feeds an unpowered panel.
func (d *Dev) sleep(ctx context.Context) error {
	if err := d.commands([]byte{cmdDeepSleep, deepSleepKeepRAM}); err != nil {
		return err
	}
	d.awake = false
	if d.pins.PWR == nil {
		return nil
	}
	if err := d.opts.Clock.Sleep(ctx, 2*time.Second); err != nil {
		return fmt.Errorf("ssd1680: power down: %w", err)
	}
	for _, p := range []struct {
		name string
		pin  gpio.PinOut
	}{{"RST", d.pins.RST}, {"DC", d.pins.DC}, {"PWR", d.pins.PWR}} {
		if err := p.pin.Out(gpio.Low); err != nil {
			return fmt.Errorf("ssd1680: %s off: %w", p.name, err)
		}
	}
	return nil
}

func (d *Dev) activate(ctx context.Context, sequence byte, what string) error {
	if err := d.commands([]byte{cmdUpdateControl2, sequence}, []byte{cmdMasterActivation}); err != nil {
		return err
	}
	return d.waitBusy(ctx, what)
}

// writeRAM sends a whole frame to one RAM, from the top-left corner.
func (d *Dev) writeRAM(ram byte, frame []byte) error {
	if err := d.commands([]byte{cmdRAMXCounter, 0x00}, []byte{cmdRAMYCounter, 0x00, 0x00}); err != nil {
		return err
	}
	return d.send(ram, frame)
}

// commands sends each command: its first byte, then its parameters.
func (d *Dev) commands(cmds ...[]byte) error {
	for _, c := range cmds {
		if err := d.send(c[0], c[1:]); err != nil {
			return err
		}
	}
	return nil
}

// send writes a command byte with DC low, then data with DC high in chunks
// the SPI port accepts, with CS low around both when the Dev drives CS.
func (d *Dev) send(cmd byte, data []byte) (err error) {
	if d.pins.CS != nil {
		if err := d.pins.CS.Out(gpio.Low); err != nil {
			return fmt.Errorf("ssd1680: CS: %w", err)
		}
		defer func() {
			if e := d.pins.CS.Out(gpio.High); e != nil && err == nil {
				err = fmt.Errorf("ssd1680: CS: %w", e)
			}
		}()
	}
	if err := d.pins.DC.Out(gpio.Low); err != nil {
		return fmt.Errorf("ssd1680: DC: %w", err)
	}
	if err := d.tx([]byte{cmd}); err != nil {
		return fmt.Errorf("ssd1680: command %#02x: %w", cmd, err)
	}
	if len(data) == 0 {
		return nil
	}
	if err := d.pins.DC.Out(gpio.High); err != nil {
		return fmt.Errorf("ssd1680: DC: %w", err)
	}
	for len(data) > 0 {
		n := min(len(data), d.maxTx)
		if err := d.tx(data[:n]); err != nil {
			return fmt.Errorf("ssd1680: data of %#02x: %w", cmd, err)
		}
		data = data[n:]
	}
	return nil
}

func (d *Dev) tx(w []byte) error {
	d.stats.Transfers++
	d.stats.Bytes += int64(len(w))
	return d.conn.Tx(w, nil)
}

// waitBusy polls BUSY until it is low, for at most the BUSY timeout.
func (d *Dev) waitBusy(ctx context.Context, what string) error {
	start := d.opts.Clock.Now()
	for d.pins.Busy.Read() == gpio.High {
		if waited := d.opts.Clock.Now().Sub(start); waited >= d.opts.BusyTimeout {
			return fmt.Errorf("%w for %v during %s", ErrBusyTimeout, waited, what)
		}
		if err := d.opts.Clock.Sleep(ctx, d.opts.BusyPoll); err != nil {
			return fmt.Errorf("ssd1680: waiting for %s: %w", what, err)
		}
	}
	return nil
}
