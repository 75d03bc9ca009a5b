// Package ssd1680 drives an SSD1680 E-Ink controller, as on the Waveshare
// 2.13" e-Paper HAT V3 and V4 (250×122, 1 bit), over periph.io's SPI and
// GPIO primitives.
//
// It exists because periph's devices/v3 waveshare2in13v4 driver runs two
// full refreshes per draw, has no partial refresh and waits on BUSY without a
// timeout (docs/eink.md#why-our-own-driver). This driver does a full refresh
// on start and periodically, partial refreshes in between (writing the
// previous frame to RAM 0x26 as the controller expects), deep sleep on demand
// with a re-init on the next frame, and every BUSY wait ends with
// ErrBusyTimeout rather than hanging (docs/eink.md#busy-timeouts).
//
// The command sequences follow Waveshare's epd2in13_V4.py (init, display,
// displayPartial with the 0x26 fix of waveshareteam/e-Paper#416, sleep).
// The V3 panel takes the same sequences here: the controller's built-in
// waveforms are used and no custom LUT is loaded. Neither has been run on a
// real panel by this package's tests, which use periph's spitest and
// gpiotest fakes (see ssd1680test).
//
// The package never opens hardware itself (the caller passes a spi.Port and
// pins, opened through periph's registries after host.Init), never sleeps on
// the wall clock except through the injected Clock, and is not safe for
// concurrent use: one goroutine owns a Dev.
package ssd1680
