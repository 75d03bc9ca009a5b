// Package ssd1680test is a fake SSD1680 panel for tests, built on periph's
// own fakes: spitest.Record records every SPI transfer byte for byte, and
// gpiotest.Pin backs every pin. The panel decodes the SPI stream by the DC
// pin's level into commands and data, keeps the two RAMs the way the
// controller addresses them, raises BUSY for a simulated time on a fake
// clock when a refresh runs, and notes every protocol violation it sees
// (a transfer with CS high or power off, a command during deep sleep, a
// partial refresh whose RAM 0x26 is not the frame on the glass).
//
// It never sleeps on the wall clock and never touches real hardware.
package ssd1680test

import (
	"fmt"
	"image"
	"sync"
	"time"

	"periph.io/x/conn/v3"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spitest"

	"github.com/axonhq/axon/hardware/ssd1680"
)

// Options shape a fake panel. The zero value is a healthy panel with the
// Waveshare timings, without CS or PWR pins.
type Options struct {
	FullTime    time.Duration // BUSY after a full refresh; default 2 s
	PartialTime time.Duration // BUSY after a partial refresh; default 300 ms
	ResetTime   time.Duration // BUSY after a software reset; default 2 ms
	// StuckBusy keeps BUSY high forever once it first rises: a wedged or
	// disconnected panel.
	StuckBusy bool
	// MaxTxSize is what the connection reports through conn.Limits; 0
	// reports no limit.
	MaxTxSize int
	CS, PWR   bool // give the panel a CS pin, a PWR pin
}

// Refresh is one activation (command 0x20) the panel ran.
type Refresh struct {
	Kind  string // "full" or "partial"
	Frame []byte // RAM 0x24 at activation: what the glass shows after it
}

// Edge is a level change of a pin, at fake time At since the panel was made.
type Edge struct {
	Pin   string
	Level gpio.Level
	At    time.Duration
}

// Panel is a fake SSD1680 on a fake SPI port and fake pins.
type Panel struct {
	Record spitest.Record // every Tx, byte for byte
	Clock  *Clock
	DC     *Pin
	RST    *Pin
	CS     *Pin // nil unless Options.CS
	PWR    *Pin // nil unless Options.PWR
	Busy   *gpiotest.Pin

	opts  Options
	start time.Time

	mu         sync.Mutex
	log        []string
	edges      []Edge
	violations []string
	refreshes  []Refresh
	ram        map[byte][]byte // 0x24 and 0x26
	shown      []byte
	asleep     bool

	// decoder state
	cmd      byte
	args     []byte
	dataN    int
	inCmd    bool
	x, y     int
	xr, yr   [2]int
	entry    byte
	sequence byte
}

var _ spi.PortCloser = (*Panel)(nil)

// New returns a powered-off panel whose glass and RAMs are white.
func New(opts Options) *Panel {
	if opts.FullTime == 0 {
		opts.FullTime = 2 * time.Second
	}
	if opts.PartialTime == 0 {
		opts.PartialTime = 300 * time.Millisecond
	}
	if opts.ResetTime == 0 {
		opts.ResetTime = 2 * time.Millisecond
	}
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	p := &Panel{
		Clock: NewClock(start),
		Busy:  &gpiotest.Pin{N: "BUSY", Num: 24, EdgesChan: make(chan gpio.Level, 1)},
		opts:  opts,
		start: start,
		ram:   map[byte][]byte{0x24: white(), 0x26: white()},
		shown: white(),
	}
	p.DC = p.newPin("DC", 25)
	p.RST = p.newPin("RST", 17)
	if opts.CS {
		p.CS = p.newPin("CS", 8)
		p.CS.L = gpio.High
	}
	if opts.PWR {
		p.PWR = p.newPin("PWR", 18)
	}
	p.resetRegisters()
	return p
}

func white() []byte {
	b := make([]byte, ssd1680.FrameBytes)
	for i := range b {
		b[i] = 0xFF
	}
	return b
}

// Pins returns the pins to hand to ssd1680.New.
func (p *Panel) Pins() ssd1680.Pins {
	pins := ssd1680.Pins{DC: p.DC, RST: p.RST, Busy: p.Busy}
	if p.CS != nil {
		pins.CS = p.CS
	}
	if p.PWR != nil {
		pins.PWR = p.PWR
	}
	return pins
}

// String implements spi.Port.
func (p *Panel) String() string { return "ssd1680test" }

// Close implements spi.PortCloser.
func (p *Panel) Close() error { return p.Record.Close() }

// LimitSpeed implements spi.PortCloser.
func (p *Panel) LimitSpeed(f physic.Frequency) error { return p.Record.LimitSpeed(f) }

// Connect implements spi.Port. Like periph's fakes it accepts one Connect.
func (p *Panel) Connect(f physic.Frequency, mode spi.Mode, bits int) (spi.Conn, error) {
	if mode != spi.Mode0 || bits != 8 {
		return nil, fmt.Errorf("ssd1680test: SSD1680 wants SPI mode 0, 8 bits; got %s, %d", mode, bits)
	}
	c, err := p.Record.Connect(f, mode, bits)
	if err != nil {
		return nil, err
	}
	return &panelConn{Conn: c, p: p}, nil
}

type panelConn struct {
	spi.Conn
	p *Panel
}

func (c *panelConn) Tx(w, r []byte) error {
	if err := c.Conn.Tx(w, r); err != nil {
		return err
	}
	c.p.receive(w)
	return nil
}

func (c *panelConn) MaxTxSize() int { return c.p.opts.MaxTxSize }

var _ conn.Limits = (*panelConn)(nil)

// Log is what the panel saw, in order: pin changes of RST and PWR as
// "RST low", and each command as its bytes in hex ("01 f9 00 00"), RAM
// writes abbreviated ("24 [4000 bytes]").
func (p *Panel) Log() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flush()
	return append([]string(nil), p.log...)
}

// ResetLog forgets the log, edges and violations so far (not the RAMs).
func (p *Panel) ResetLog() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flush()
	p.log, p.edges, p.violations = nil, nil, nil
}

// Edges are the level changes of RST, CS and PWR with their fake times.
func (p *Panel) Edges() []Edge {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Edge(nil), p.edges...)
}

// Violations are the protocol errors the panel noticed; a correct driver
// causes none.
func (p *Panel) Violations() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flush()
	return append([]string(nil), p.violations...)
}

// Refreshes are the activations run so far.
func (p *Panel) Refreshes() []Refresh {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Refresh(nil), p.refreshes...)
}

// RAM returns a copy of RAM 0x24 (the new frame) or 0x26 (the previous one).
func (p *Panel) RAM(which byte) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flush()
	return append([]byte(nil), p.ram[which]...)
}

// Reopen models a later process taking the panel over once this one's Dev
// is gone: the port accepts one more Connect, and the glass keeps its image,
// as E-Ink does without power. The RAMs come back black: the panel may have
// been switched off in between, so a driver can count on nothing in them.
func (p *Panel) Reopen() {
	p.Record.Lock()
	p.Record.Initialized = false
	p.Record.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flush()
	for _, ram := range p.ram {
		clear(ram)
	}
}

// Asleep reports whether the controller is in deep sleep.
func (p *Panel) Asleep() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flush()
	return p.asleep
}

// Glass decodes what the glass shows into a native-orientation image,
// NativeWidth×NativeHeight: bit 1 white, 0 black, MSB the leftmost pixel.
func (p *Panel) Glass() *image.Gray {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Decode(p.shown)
}

// Decode turns a RAM image into a native-orientation gray image.
func Decode(ram []byte) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, ssd1680.NativeWidth, ssd1680.NativeHeight))
	for y := 0; y < ssd1680.NativeHeight; y++ {
		for x := 0; x < ssd1680.NativeWidth; x++ {
			if ram[y*ssd1680.RowBytes+x/8]&(0x80>>(x%8)) != 0 {
				img.Pix[img.PixOffset(x, y)] = 0xFF
			}
		}
	}
	return img
}
