package main

import (
	"fmt"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spireg"

	"github.com/axonhq/axon/hardware/ssd1680"
)

// board opens the panel's SPI port and pins by their configured names.
// periphBoard reaches real hardware; tests hand over a fake panel.
type board interface {
	Open(c config) (spi.PortCloser, ssd1680.Pins, error)
}

// periphBoard opens hardware through periph's registries, after the host
// drivers are loaded by init (host.Init, passed in by main).
type periphBoard struct {
	init func() error
}

var _ board = periphBoard{}

func (b periphBoard) Open(c config) (spi.PortCloser, ssd1680.Pins, error) {
	var pins ssd1680.Pins
	if err := b.init(); err != nil {
		return nil, pins, fmt.Errorf("load periph host drivers: %w", err)
	}
	named := func(attr, name string) (gpio.PinIO, error) {
		p := gpioreg.ByName(name)
		if p == nil {
			return nil, fmt.Errorf("%s %q: no such GPIO on this machine", attr, name)
		}
		return p, nil
	}
	var err error
	if pins.DC, err = named("dc_pin", c.DCPin); err != nil {
		return nil, pins, err
	}
	if pins.RST, err = named("rst_pin", c.RSTPin); err != nil {
		return nil, pins, err
	}
	if pins.Busy, err = named("busy_pin", c.BusyPin); err != nil {
		return nil, pins, err
	}
	// Optional pins stay nil interfaces when not configured.
	if c.CSPin != "" {
		p, err := named("cs_pin", c.CSPin)
		if err != nil {
			return nil, pins, err
		}
		pins.CS = p
	}
	if c.PowerPin != "" {
		p, err := named("power_pin", c.PowerPin)
		if err != nil {
			return nil, pins, err
		}
		pins.PWR = p
	}
	port, err := spireg.Open(c.SPIPort)
	if err != nil {
		return nil, pins, fmt.Errorf("spi_port %q: %w (is SPI enabled? dtparam=spi=on in /boot/firmware/config.txt)", c.SPIPort, err)
	}
	return port, pins, nil
}
