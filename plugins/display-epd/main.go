// Command axon-display-epd shows the axon face on a Waveshare 2.13" e-Paper
// HAT (SSD1680, 250×122, V3 or V4) over SPI, with partial refresh for
// frequent updates, a periodic full refresh and deep sleep on Halt.
//
// Rendering is hardware/facerender and the panel driver hardware/ssd1680; this
// command wires them to the sdk.Display contract and to periph's registries.
// It opens hardware only in Configure. Like every plugin it never writes to
// stdout (the go-plugin handshake) and opens no socket; the only file it
// writes is its state_file, when the block sets one (glass.go).
//
// On a Pi the plugin needs the spi and gpio groups and, with the host's
// default network-namespace sandbox, may need sandbox = "none" in its
// display block (see hardware/README.md).
package main

import (
	"periph.io/x/host/v3"

	"github.com/axonhq/axon/hardware/ssd1680"
	"github.com/axonhq/axon/sdk/serve"
)

// version is stamped by the Makefile (-ldflags "-X main.version=…"); "dev" in a plain go build.
var version = "dev"

func main() {
	serve.Display(newEPD(periphBoard{init: loadHostDrivers}, ssd1680.SystemClock{}))
}

// loadHostDrivers registers the machine's SPI ports and GPIO pins with
// periph. Off a Pi it succeeds with every driver skipped, and Configure then
// reports the missing port or pin.
func loadHostDrivers() error {
	_, err := host.Init()
	return err
}
