//go:build unix

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalSize returns f's rows and columns; ok is false when f is no
// terminal (a file).
func terminalSize(f *os.File) (rows, cols int, ok bool) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0, false
	}
	return int(ws.Row), int(ws.Col), true
}
