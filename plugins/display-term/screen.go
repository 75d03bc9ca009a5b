package main

import (
	"fmt"
	"strings"
)

// The escape sequences this display writes (ECMA-48 and DEC VT100, which
// every terminal emulator in use understands).
const (
	clearScreen   = "\x1b[H\x1b[2J" // cursor home, erase the screen
	saveCursor    = "\x1b7"         // DECSC: position and attributes
	restoreCursor = "\x1b8"         // DECRC
	wholeScreen   = "\x1b[r"        // DECSTBM without margins: the whole screen scrolls again
	plainText     = "\x1b[0m"       // SGR 0: no colour a log line may have left on
	eraseLine     = "\x1b[K"        // from the cursor to the end of its line
	eraseBelow    = "\x1b[J"        // from the cursor to the end of the screen
)

// minLogRows is the least the scroll region above a pinned face may have:
// DECSTBM ignores a region of fewer than two rows.
const minLogRows = 2

// pin is a face held in the bottom rows of a terminal while everything
// else written to the terminal (the host's log, on the same terminal)
// scrolls in the rows above it: the scroll region (DECSTBM) ends above
// the face. A line scrolled off the top of a region that starts at the
// first row still reaches the terminal's scrollback, so no log line is
// lost; apt draws its progress bar the same way.
//
// Every sequence is one write, and a terminal takes a write whole (the
// kernel holds the tty's write lock across it), so a host log line never
// lands between the cursor's save and its restore.
type pin struct {
	rows, cols int // the terminal's size when the region was set
	height     int // the face's rows at the bottom
}

// fits reports whether the terminal holds the face, width columns wide,
// with at least minLogRows rows above it for the log.
func (p pin) fits(width int) bool {
	return p.cols >= width && p.rows-p.height >= minLogRows
}

// top is the first row of the face (rows count from 1).
func (p pin) top() int { return p.rows - p.height + 1 }

// setup makes room for the face and sets the region above it. Newlines
// move the cursor down by the face's height, scrolling the screen only as
// far as that needs, so the log stays in view above the face; the cursor
// then goes back up that far, to where the next log line belongs. (Setting
// the region homes the cursor, hence the save and restore around it.)
func (p pin) setup() string {
	return strings.Repeat("\n", p.height) + saveCursor + fmt.Sprintf("\x1b[1;%dr", p.top()-1) + restoreCursor + fmt.Sprintf("\x1b[%dA", p.height)
}

// draw writes lines into the face's rows, each erased to its end, and puts
// the cursor back where the log was.
func (p pin) draw(lines []string) string {
	var sb strings.Builder
	sb.WriteString(saveCursor + plainText)
	for i, l := range lines[:min(len(lines), p.height)] {
		fmt.Fprintf(&sb, "\x1b[%d;1H%s%s", p.top()+i, l, eraseLine)
	}
	sb.WriteString(restoreCursor)
	return sb.String()
}

// release gives the face's rows back to the log: the whole screen scrolls
// again, the face is erased, and the cursor is where the log was.
func (p pin) release() string {
	return saveCursor + wholeScreen + fmt.Sprintf("\x1b[%d;1H", p.top()) + eraseBelow + restoreCursor
}
