package main

import (
	"image"
	"strings"

	"github.com/axonhq/axon/hardware/facerender"
)

// halfBlocks turns a 1-bit image into text rows: each character covers two
// pixel rows, ink drawn as block. An odd last pixel row is paired with paper.
// Trailing spaces are trimmed.
func halfBlocks(img image.Image) []string {
	b := img.Bounds()
	var rows []string
	var sb strings.Builder
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		sb.Reset()
		for x := b.Min.X; x < b.Max.X; x++ {
			top, bottom := facerender.IsInk(img, x, y), facerender.IsInk(img, x, y+1)
			switch {
			case top && bottom:
				sb.WriteRune('█')
			case top:
				sb.WriteRune('▀')
			case bottom:
				sb.WriteRune('▄')
			default:
				sb.WriteByte(' ')
			}
		}
		rows = append(rows, strings.TrimRight(sb.String(), " "))
	}
	return rows
}

// wrapText wraps s into at most maxLines lines of at most width runes,
// breaking at spaces where it can, and ends cut text with "…". It counts
// runes, not terminal cells: wide (CJK) characters may run over.
func wrapText(s string, width, maxLines int) []string {
	words := strings.Fields(s)
	var lines []string
	cur := []rune{}
	flush := func() {
		if len(cur) > 0 {
			lines = append(lines, string(cur))
			cur = cur[:0]
		}
	}
	for i := 0; i < len(words); i++ {
		w := []rune(words[i])
		switch {
		case len(cur) == 0 && len(w) <= width:
			cur = append(cur, w...)
		case len(cur) > 0 && len(cur)+1+len(w) <= width:
			cur = append(append(cur, ' '), w...)
		case len(cur) > 0:
			flush()
			i--
		default: // a word longer than a line
			cur = append(cur, w[:width]...)
			flush()
			words[i] = string(w[width:])
			i--
		}
		if len(lines) == maxLines {
			return ellipsize(lines, width)
		}
	}
	flush()
	if len(lines) > maxLines {
		return ellipsize(lines[:maxLines], width)
	}
	return lines
}

// ellipsize marks the last line as cut, keeping it within width runes.
func ellipsize(lines []string, width int) []string {
	last := []rune(lines[len(lines)-1])
	if len(last) >= width {
		last = last[:width-1]
	}
	lines[len(lines)-1] = strings.TrimRight(string(last), " ") + "…"
	return lines
}
