// Command axon-display-term draws the axon face in a terminal with Unicode
// half blocks (▀ ▄ █), two pixel rows per character row, and prints the
// frame's text and status under it as plain text.
//
// A go-plugin plugin must never write to its stdout (it carries the
// handshake) and its stderr goes to the host's log, so this display writes to
// the terminal device named by tty, or to any file, which is how its tests
// read it. The default, /dev/tty, is the terminal axon runs in: in the
// sandbox, a block that grants devices = ["/dev/tty"] gets axon's own
// terminal there.
//
// On a terminal (with clear on) the face is pinned to the bottom rows: the
// scroll region ends above it, so the host's log, which shares the
// terminal, scrolls there; Halt and Close give the rows back. A terminal
// too small for that, and a file, get each frame after a clear-screen
// sequence. It opens no socket.
package main

import (
	"github.com/axonhq/axon/sdk/serve"
)

// version is stamped by the Makefile (-ldflags "-X main.version=…"); "dev" in a plain go build.
var version = "dev"

func main() { serve.Display(newTermDisplay()) }
