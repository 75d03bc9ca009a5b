package main

import (
	"strconv"
	"strings"
)

// screen is a model of a VT100-style terminal, just enough to replay what
// this plugin and a host's log write to one: printable text with wrapping,
// CR, LF, tab and backspace, DECSC/DECRC, and the CSI sequences CUP (H),
// CUU (A), EL (K), ED (J), DECSTBM (r) and SGR (m, ignored), with xterm's
// rules (a region sets the cursor home; LF at the region's bottom scrolls
// the region; lines scrolled off a region that starts at the first row go
// to the scrollback). It records every printable character that lands in
// the rows below the region outside a DECSC…DECRC bracket: the plugin
// draws the face only inside one, so such a write is a log line running
// through the face.
type screen struct {
	rows, cols  int
	cells       [][]rune
	r, c        int // cursor, from 0
	savedR      int
	savedC      int
	saved       bool // inside a DECSC…DECRC bracket
	top, bottom int  // scroll region, rows from 0, inclusive
	scrollback  []string
	regions     []string // every DECSTBM, as "top;bottom" (1-based) or "" for the whole screen
	intrusions  []string // text written below the region outside a bracket
	onRegion    func(s *screen)
}

func newScreen(rows, cols int) *screen {
	s := &screen{rows: rows, cols: cols, bottom: rows - 1}
	s.cells = make([][]rune, rows)
	for i := range s.cells {
		s.cells[i] = blankRow(cols)
	}
	return s
}

func blankRow(cols int) []rune { return []rune(strings.Repeat(" ", cols)) }

// line is row i (from 0) without its trailing blanks.
func (s *screen) line(i int) string { return strings.TrimRight(string(s.cells[i]), " ") }

func (s *screen) write(text string) {
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		switch ch := rs[i]; {
		case ch == '\x1b' && i+1 < len(rs):
			i++
			switch rs[i] {
			case '7':
				s.savedR, s.savedC, s.saved = s.r, s.c, true
			case '8':
				s.r, s.c, s.saved = s.savedR, s.savedC, false
			case '[':
				j := i + 1
				for j < len(rs) && (rs[j] < 0x40 || rs[j] > 0x7e) {
					j++
				}
				if j == len(rs) {
					return
				}
				s.csi(string(rs[i+1:j]), rs[j])
				i = j
			}
		case ch == '\r':
			s.c = 0
		case ch == '\n':
			s.lineFeed()
		case ch == '\t':
			s.c = min(s.cols-1, (s.c/8+1)*8)
		case ch == '\b':
			s.c = max(0, s.c-1)
		case ch >= ' ':
			if s.c >= s.cols {
				s.c = 0
				s.lineFeed()
			}
			if s.r > s.bottom && !s.saved {
				s.intrusions = append(s.intrusions, string(ch))
			}
			s.cells[s.r][s.c] = ch
			s.c++
		}
	}
}

func (s *screen) lineFeed() {
	if s.r != s.bottom {
		s.r = min(s.r+1, s.rows-1)
		return
	}
	if s.top == 0 {
		s.scrollback = append(s.scrollback, s.line(0))
	}
	copy(s.cells[s.top:s.bottom], s.cells[s.top+1:s.bottom+1])
	s.cells[s.bottom] = blankRow(s.cols)
}

func (s *screen) csi(params string, final rune) {
	var n []int
	for _, p := range strings.Split(params, ";") {
		v, err := strconv.Atoi(p)
		if err != nil {
			v = 0
		}
		n = append(n, v)
	}
	arg := func(i, def int) int {
		if i < len(n) && n[i] > 0 {
			return n[i]
		}
		return def
	}
	switch final {
	case 'H':
		s.r, s.c = min(arg(0, 1), s.rows)-1, min(arg(1, 1), s.cols)-1
	case 'A':
		stop := 0
		if s.r >= s.top {
			stop = s.top
		}
		s.r = max(stop, s.r-arg(0, 1))
	case 'K':
		for x := s.c; x < s.cols; x++ {
			s.cells[s.r][x] = ' '
		}
	case 'J':
		from := s.r + 1
		if params == "2" {
			from = 0
		} else {
			for x := s.c; x < s.cols; x++ {
				s.cells[s.r][x] = ' '
			}
		}
		for y := from; y < s.rows; y++ {
			s.cells[y] = blankRow(s.cols)
		}
	case 'r':
		top, bottom := arg(0, 1), arg(1, s.rows)
		if top >= bottom || bottom > s.rows {
			return // ignored, as a VT100 does
		}
		if s.onRegion != nil {
			s.onRegion(s)
		}
		s.top, s.bottom = top-1, bottom-1
		if params == "" {
			s.regions = append(s.regions, "")
		} else {
			s.regions = append(s.regions, params)
		}
		s.r, s.c = 0, 0
	}
}
