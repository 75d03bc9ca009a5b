// Command axon-display-png is a display that writes each frame as a 1-bit
// PNG file: for tests (the host's end-to-end tests read the frames back),
// screenshots and docs. It draws exactly what axon-display-epd puts on the
// panel (hardware/facerender), at any size.
//
// Files, in the configured dir:
//   - keep_all = false (default): every frame replaces latest.png.
//   - keep_all = true: frame-000001-thinking.png, frame-000002-speaking.png,
//     …: a six-digit sequence number (more digits past 999999), then the
//     expression with anything but [a-z0-9_] replaced by "_". Numbering
//     continues after the highest frame already in dir, so a restarted
//     plugin never overwrites an earlier frame.
//
// Each file is written to a temporary file in dir and renamed into place, so
// a reader never sees half a PNG. Halt writes nothing: like E-Ink, the last
// frame stays. The plugin never writes to stdout and opens no socket.
package main

import (
	"github.com/axonhq/axon/sdk/serve"
)

// version is stamped by the Makefile (-ldflags "-X main.version=…"); "dev" in a plain go build.
var version = "dev"

func main() { serve.Display(newPNGDisplay()) }
