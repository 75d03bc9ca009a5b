package ssd1680_test

import (
	"context"
	"image"
	"io"
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio/gpiotest"
	"periph.io/x/conn/v3/spi/spitest"

	"github.com/axonhq/axon/hardware/ssd1680"
	"github.com/axonhq/axon/hardware/ssd1680/ssd1680test"
)

// benchDev is a Dev on periph's cheapest fakes: a raw recorder that drops
// the bytes and pins whose BUSY always reads idle.
func benchDev(b *testing.B, o ssd1680.Opts) *ssd1680.Dev {
	b.Helper()
	o.Clock = ssd1680test.NewClock(time.Unix(0, 0))
	pins := ssd1680.Pins{
		DC:   &gpiotest.Pin{N: "DC"},
		RST:  &gpiotest.Pin{N: "RST"},
		Busy: &gpiotest.Pin{N: "BUSY"},
	}
	d, err := ssd1680.New(spitest.NewRecordRaw(io.Discard), pins, &o)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

func BenchmarkPack(b *testing.B) {
	img := noise(1, 250, 122)
	buf := make([]byte, ssd1680.FrameBytes)
	b.ReportAllocs()
	for b.Loop() {
		if err := ssd1680.Pack(buf, img, ssd1680.Rot0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRefresh reports the SPI bytes and transfers of each refresh kind
// (the panel's own refresh time, 2 s or 0.3 s, is not part of it).
func BenchmarkRefresh(b *testing.B) {
	frames := []*image.Gray{noise(1, 250, 122), noise(2, 250, 122)}
	for _, tc := range []struct {
		name string
		opts ssd1680.Opts
	}{
		{"full", ssd1680.Opts{FullEvery: 1}},
		{"partial", ssd1680.Opts{FullEvery: -1, FullInterval: -1}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			d := benchDev(b, tc.opts)
			ctx := context.Background()
			if _, err := d.Draw(ctx, noise(3, 250, 122)); err != nil { // wake up and first full refresh
				b.Fatal(err)
			}
			before := d.Stats()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := d.Draw(ctx, frames[i%2]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			after := d.Stats()
			n := float64(after.Full + after.Partial - before.Full - before.Partial)
			b.ReportMetric(float64(after.Bytes-before.Bytes)/n, "spi-bytes/refresh")
			b.ReportMetric(float64(after.Transfers-before.Transfers)/n, "tx/refresh")
		})
	}
}
