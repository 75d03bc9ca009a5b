package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/axonhq/axon/hardware/ssd1680"
	"github.com/axonhq/axon/sdk"
)

// config is the display block's plugin-owned attributes.
type config struct {
	Panel               string `json:"panel"`
	SPIPort             string `json:"spi_port"`
	DCPin               string `json:"dc_pin"`
	RSTPin              string `json:"rst_pin"`
	BusyPin             string `json:"busy_pin"`
	CSPin               string `json:"cs_pin"`
	PowerPin            string `json:"power_pin"`
	FullRefreshEvery    int    `json:"full_refresh_every"`
	FullRefreshInterval string `json:"full_refresh_interval"`
	BusyTimeout         string `json:"busy_timeout"`
	Rotate              int    `json:"rotate"`
	StateFile           string `json:"state_file"`
}

// Defaults match the Waveshare 2.13" e-Paper HAT on a Raspberry Pi.
var schema = sdk.Schema{Attributes: []sdk.Attribute{
	attr("panel", "string", `"v4"`, `HAT revision: "v4" or "v3" (both SSD1680, 250x122)`),
	attr("spi_port", "string", `"SPI0.0"`, "periph SPI port name (/dev/spidev0.0)"),
	attr("dc_pin", "string", `"GPIO25"`, "data/command pin"),
	attr("rst_pin", "string", `"GPIO17"`, "reset pin"),
	attr("busy_pin", "string", `"GPIO24"`, "busy pin"),
	attr("cs_pin", "string", `""`, `chip select driven as a GPIO; "" leaves it to the SPI port (CE0)`),
	attr("power_pin", "string", `""`, `panel power switch, "GPIO18" on e-Paper Driver HAT rev 2.3; "" for none`),
	attr("full_refresh_every", "number", `20`, "every n-th update is a full refresh (1: always full, -1: never by count); the rest are partial"),
	attr("full_refresh_interval", "string", `"1h"`, `force a full refresh when the last is older than this; "0s": never`),
	attr("busy_timeout", "string", `"10s"`, "longest wait for the panel to finish a step before the frame fails"),
	attr("rotate", "number", `0`, "0 or 180 (landscape 250x122), 90 or 270 (portrait 122x250)"),
	attr("state_file", "string", `""`, `absolute path where the frame on the glass is kept while no plugin process runs (idle_stop, a restart of axon), so that the next process starts with a partial refresh; its directory must be granted read_write. "": none, each process starts with a full refresh`),
}}

func attr(name, typ, def, desc string) sdk.Attribute {
	return sdk.Attribute{Name: name, Type: typ, Default: json.RawMessage(def), Description: desc}
}

// driverOpts validates the configuration and turns it into driver options.
func (c config) driverOpts() (ssd1680.Opts, error) {
	var o ssd1680.Opts
	switch c.Panel {
	case "v3", "v4":
	case "v2", "v1":
		return o, fmt.Errorf("panel %q: the V1 and V2 HATs use other controllers; this plugin drives the SSD1680 of V3 and V4", c.Panel)
	default:
		return o, fmt.Errorf("panel %q: want \"v4\" or \"v3\"", c.Panel)
	}
	for _, a := range []struct{ name, v string }{
		{"spi_port", c.SPIPort}, {"dc_pin", c.DCPin}, {"rst_pin", c.RSTPin}, {"busy_pin", c.BusyPin},
	} {
		if a.v == "" {
			return o, fmt.Errorf("%s must not be empty", a.name)
		}
	}
	o.Rotation = ssd1680.Rotation(c.Rotate)
	if err := o.Rotation.Valid(); err != nil {
		return o, fmt.Errorf("rotate %d: want 0, 90, 180 or 270", c.Rotate)
	}
	if c.FullRefreshEvery == 0 {
		return o, fmt.Errorf("full_refresh_every = 0: use 1 for always full, -1 for never by count")
	}
	o.FullEvery = c.FullRefreshEvery
	var err error
	if o.FullInterval, err = duration("full_refresh_interval", c.FullRefreshInterval); err != nil {
		return o, err
	}
	if o.FullInterval <= 0 {
		o.FullInterval = -1 // the driver's "never"; its zero means "default"
	}
	if o.BusyTimeout, err = duration("busy_timeout", c.BusyTimeout); err != nil {
		return o, err
	}
	if o.BusyTimeout <= 0 {
		return o, fmt.Errorf("busy_timeout %q: must be positive", c.BusyTimeout)
	}
	return o, nil
}

func duration(name, s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s %q: not a duration like \"1h\" or \"10s\"", name, s)
	}
	return d, nil
}
