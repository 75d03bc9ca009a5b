package ssd1680test

import (
	"fmt"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
)

// Pin is an output pin of the panel: a gpiotest.Pin that tells the panel
// about every level change, so the panel can log RST and PWR, time pulses,
// and reset the controller on RST low.
type Pin struct {
	gpiotest.Pin
	p *Panel
}

func (p *Panel) newPin(name string, num int) *Pin {
	return &Pin{Pin: gpiotest.Pin{N: name, Num: num}, p: p}
}

// Out implements gpio.PinOut.
func (pin *Pin) Out(l gpio.Level) error {
	prev := pin.Read()
	if err := pin.Pin.Out(l); err != nil {
		return err
	}
	pin.p.pinChanged(pin.N, prev, l)
	return nil
}

var _ gpio.PinOut = (*Pin)(nil)

func (p *Panel) pinChanged(name string, prev, l gpio.Level) {
	if name == "DC" {
		return // DC only frames commands; the decoder reads its level
	}
	now := p.Clock.Now().Sub(p.start)
	p.mu.Lock()
	defer p.mu.Unlock()
	if name != "CS" {
		p.flush()
		p.log = append(p.log, fmt.Sprintf("%s %s", name, levelName(l)))
	}
	if prev != l {
		p.edges = append(p.edges, Edge{Pin: name, Level: l, At: now})
	}
	if name == "RST" && l == gpio.Low {
		p.hardwareReset()
	}
}

func levelName(l gpio.Level) string {
	if l == gpio.High {
		return "high"
	}
	return "low"
}
