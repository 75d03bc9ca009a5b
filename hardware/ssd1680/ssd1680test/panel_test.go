package ssd1680test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
)

// host drives the fake panel by hand, byte by byte, as a driver would.
type host struct {
	t *testing.T
	p *Panel
	c spi.Conn
}

func newHost(t *testing.T, opts Options) host {
	t.Helper()
	p := New(opts)
	c, err := p.Connect(4*physic.MegaHertz, spi.Mode0, 8)
	if err != nil {
		t.Fatal(err)
	}
	return host{t: t, p: p, c: c}
}

func (h host) send(cmd byte, data ...byte) {
	h.t.Helper()
	_ = h.p.DC.Out(gpio.Low)
	if err := h.c.Tx([]byte{cmd}, nil); err != nil {
		h.t.Fatal(err)
	}
	if len(data) == 0 {
		return
	}
	_ = h.p.DC.Out(gpio.High)
	if err := h.c.Tx(data, nil); err != nil {
		h.t.Fatal(err)
	}
}

func TestRAMWritesFollowTheAddressCounter(t *testing.T) {
	t.Parallel()
	h := newHost(t, Options{})
	h.send(0x4E, 15)         // last byte of a row
	h.send(0x4F, 5, 0)       // row 5
	h.send(0x24, 0x00, 0x7F) // fills X 120..127 of row 5, then wraps to X 0 of row 6
	ram := h.p.RAM(0x24)
	if ram[5*16+15] != 0x00 || ram[6*16+0] != 0x7F {
		t.Errorf("RAM bytes %#x %#x, want 0x00 at row 5 byte 15 and 0x7f at row 6 byte 0", ram[5*16+15], ram[6*16])
	}
	img := Decode(ram)
	if img.GrayAt(121, 5).Y != 0 || img.GrayAt(0, 6).Y != 0 || img.GrayAt(1, 6).Y != 0xFF {
		t.Error("Decode does not read MSB-first, 0 = black")
	}
	if diff := cmp.Diff([]string{"4e 0f", "4f 05 00", "24 [2 bytes]"}, h.p.Log()); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}

func TestViolations(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		run  func(h host)
		want string
	}{
		{"command in deep sleep", func(h host) { h.send(0x10, 0x01); h.send(0x12) }, "deep sleep"},
		{"reset wakes", func(h host) { h.send(0x10, 0x01); _ = h.p.RST.Out(gpio.Low); _ = h.p.RST.Out(gpio.High); h.send(0x12) }, ""},
		{"data first", func(h host) {
			_ = h.p.DC.Out(gpio.High)
			_ = h.c.Tx([]byte{1}, nil)
		}, "before any command"},
		{"partial without reference", func(h host) {
			h.send(0x24, 0x00)
			h.send(0x22, 0xFF)
			h.send(0x20)
		}, ""}, // 0x26 still equals the white glass: allowed
		{"partial with a stale reference", func(h host) {
			h.send(0x26, 0x00)
			h.send(0x22, 0xFF)
			h.send(0x20)
		}, "RAM 0x26"},
		{"unknown sequence", func(h host) { h.send(0x22, 0x42); h.send(0x20) }, "unknown update sequence"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHost(t, Options{})
			tc.run(h)
			v := strings.Join(h.p.Violations(), "; ")
			if tc.want == "" && v != "" {
				t.Errorf("violations %q, want none", v)
			}
			if tc.want != "" && !strings.Contains(v, tc.want) {
				t.Errorf("violations %q, want one about %q", v, tc.want)
			}
		})
	}
}

func TestCSAndPowerAreChecked(t *testing.T) {
	t.Parallel()
	h := newHost(t, Options{CS: true, PWR: true})
	h.send(0x12) // CS high (idle) and power off
	v := strings.Join(h.p.Violations(), "; ")
	for _, want := range []string{"CS high", "powered off"} {
		if !strings.Contains(v, want) {
			t.Errorf("violations %q, want one about %q", v, want)
		}
	}
}

func TestBusyFollowsTheFakeClock(t *testing.T) {
	t.Parallel()
	h := newHost(t, Options{FullTime: 2 * time.Second})
	h.send(0x22, 0xF7)
	h.send(0x20)
	if h.p.Busy.Read() != gpio.High {
		t.Fatal("BUSY low right after a full refresh started")
	}
	h.p.Clock.Advance(1999 * time.Millisecond)
	if h.p.Busy.Read() != gpio.High {
		t.Fatal("BUSY fell before the refresh time")
	}
	h.p.Clock.Advance(time.Millisecond)
	if h.p.Busy.Read() != gpio.Low {
		t.Fatal("BUSY still high after the refresh time")
	}
}
