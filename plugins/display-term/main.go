// Command axon-display-term draws the axon face in a terminal with Unicode
// half blocks (▀ ▄ █), two pixel rows per character row, and prints the
// frame's text and status under it as plain text.
//
// A go-plugin plugin must never write to its stdout (it carries the
// handshake) and its stderr goes to the host's log, so this display writes to
// the terminal device named by tty (default /dev/tty, the host's controlling
// terminal) or to any file, which is how its tests read it. Halt clears the
// screen. It opens no socket.
package main

import (
	"github.com/axonhq/axon/sdk/serve"
)

// version is stamped by the Makefile (-ldflags "-X main.version=…"); "dev" in a plain go build.
var version = "dev"

func main() { serve.Display(newTermDisplay()) }
