package main

import (
	"errors"
	"strings"
	"testing"
)

// TestPeriphBoardWithoutHardware runs the real board against periph's
// registries with no host driver loaded, as on a machine without the HAT:
// it must fail with the name of what is missing, not panic or hang.
func TestPeriphBoardWithoutHardware(t *testing.T) {
	t.Parallel()
	c := config{SPIPort: "SPI0.0", DCPin: "GPIO25", RSTPin: "GPIO17", BusyPin: "GPIO24"}
	_, _, err := periphBoard{init: func() error { return nil }}.Open(c)
	if err == nil || !strings.Contains(err.Error(), `dc_pin "GPIO25"`) {
		t.Errorf("Open without hardware = %v, want an error naming dc_pin", err)
	}

	initErr := errors.New("no /sys")
	_, _, err = periphBoard{init: func() error { return initErr }}.Open(c)
	if !errors.Is(err, initErr) {
		t.Errorf("Open with a failing host init = %v, want it wrapped", err)
	}
}
