package ssd1680test

import (
	"fmt"
	"strings"
	"time"

	"periph.io/x/conn/v3/gpio"
)

// This file models the controller: the command decoder, the RAM address
// counter and BUSY. All of it runs under p.mu.

// receive decodes one SPI transfer by the DC level.
func (p *Panel) receive(w []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.CS != nil && p.CS.Read() != gpio.Low {
		p.violate("transfer of %d bytes with CS high", len(w))
	}
	if p.PWR != nil && p.PWR.Read() != gpio.High {
		p.violate("transfer of %d bytes with the panel powered off", len(w))
	}
	if p.DC.Read() == gpio.Low {
		for _, b := range w {
			p.command(b)
		}
		return
	}
	if !p.inCmd {
		p.violate("%d data bytes before any command", len(w))
		return
	}
	for _, b := range w {
		p.data(b)
	}
}

func (p *Panel) command(b byte) {
	p.flush()
	if p.asleep {
		p.violate("command %#02x during deep sleep (only a hardware reset wakes the controller)", b)
	}
	p.cmd, p.args, p.dataN, p.inCmd = b, nil, 0, true
	switch b {
	case 0x12: // software reset: registers to defaults, BUSY briefly
		p.resetRegisters()
		p.busyFor(p.opts.ResetTime)
	case 0x20:
		p.activate()
	}
}

func (p *Panel) data(b byte) {
	p.dataN++
	switch p.cmd {
	case 0x24, 0x26:
		p.writeRAM(p.cmd, b)
		return
	}
	p.args = append(p.args, b)
}

// flush applies the finished command's parameters and logs it.
func (p *Panel) flush() {
	if !p.inCmd {
		return
	}
	p.inCmd = false
	a := p.args
	switch p.cmd {
	case 0x24, 0x26:
		p.log = append(p.log, fmt.Sprintf("%02x [%d bytes]", p.cmd, p.dataN))
		return
	case 0x10:
		if len(a) >= 1 && a[0]&0x03 != 0 {
			p.asleep = true
		}
	case 0x11:
		if len(a) >= 1 {
			p.entry = a[0]
		}
	case 0x22:
		if len(a) >= 1 {
			p.sequence = a[0]
		}
	case 0x44:
		if len(a) >= 2 {
			p.xr = [2]int{int(a[0]), int(a[1])}
		}
	case 0x45:
		if len(a) >= 4 {
			p.yr = [2]int{int(a[0]) | int(a[1])<<8, int(a[2]) | int(a[3])<<8}
		}
	case 0x4E:
		if len(a) >= 1 {
			p.x = int(a[0])
		}
	case 0x4F:
		if len(a) >= 2 {
			p.y = int(a[0]) | int(a[1])<<8
		}
	}
	parts := []string{fmt.Sprintf("%02x", p.cmd)}
	for _, b := range a {
		parts = append(parts, fmt.Sprintf("%02x", b))
	}
	p.log = append(p.log, strings.Join(parts, " "))
}

// writeRAM stores one byte at the address counter and advances it the way
// data entry mode 0x03 does: X first, then Y, both increasing, wrapping
// inside the window.
func (p *Panel) writeRAM(which, b byte) {
	if p.entry != 0x03 {
		p.violate("RAM write with data entry mode %#02x; this fake models 0x03 only", p.entry)
		return
	}
	if p.x < 0 || p.x >= 16 || p.y < 0 || p.y >= 250 {
		p.violate("RAM write outside the panel at X %d Y %d", p.x, p.y)
		return
	}
	p.ram[which][p.y*16+p.x] = b
	p.x++
	if p.x > p.xr[1] {
		p.x = p.xr[0]
		p.y++
		if p.y > p.yr[1] {
			p.y = p.yr[0]
		}
	}
}

// activate runs the update sequence chosen by 0x22.
func (p *Panel) activate() {
	var kind string
	switch p.sequence {
	case 0xF7:
		kind = "full"
	case 0xFF:
		kind = "partial"
		if string(p.ram[0x26]) != string(p.shown) {
			p.violate("partial refresh with RAM 0x26 not holding the frame on the glass")
		}
	default:
		p.violate("activation with unknown update sequence %#02x", p.sequence)
		return
	}
	copy(p.shown, p.ram[0x24])
	p.refreshes = append(p.refreshes, Refresh{Kind: kind, Frame: append([]byte(nil), p.shown...)})
	if kind == "full" {
		p.busyFor(p.opts.FullTime)
	} else {
		p.busyFor(p.opts.PartialTime)
	}
}

// busyFor raises BUSY and lowers it after d of fake time, unless the panel
// is stuck.
func (p *Panel) busyFor(d time.Duration) {
	_ = p.Busy.Out(gpio.High)
	if p.opts.StuckBusy {
		return
	}
	p.Clock.AfterFunc(d, func() { _ = p.Busy.Out(gpio.Low) })
}

// resetRegisters puts the registers this fake models to their reset values.
// The RAMs keep their content, as on the real controller.
func (p *Panel) resetRegisters() {
	p.x, p.y = 0, 0
	p.xr, p.yr = [2]int{0, 15}, [2]int{0, 249}
	p.entry = 0x03
	p.sequence = 0
}

// hardwareReset is a RST pulse: it wakes the controller from deep sleep.
func (p *Panel) hardwareReset() {
	p.flush()
	p.asleep = false
	p.resetRegisters()
}

func (p *Panel) violate(format string, args ...any) {
	p.violations = append(p.violations, fmt.Sprintf(format, args...))
}
