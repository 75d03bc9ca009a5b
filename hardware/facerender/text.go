package facerender

import (
	"image"
	"image/draw"
	"strings"
	"unicode"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
)

// Ink is the gray level below which an anti-aliased glyph pixel becomes ink:
// a pixel more than ~37% covered. Thresholding at 50% breaks thin stems of
// small text into dots on a 1-bit panel.
const Ink = 0xA0

const ellipsis = "…"

// line is one laid-out line of text: its string and the pen position of its
// baseline origin, in pixels.
type line struct {
	text string
	dot  image.Point
}

// Align is where a text block sits horizontally in its box.
type Align int

const (
	AlignLeft Align = iota
	AlignCenter
)

// layoutText wraps s to box using face: words wrap at spaces, a word wider
// than the box breaks between runes, and text that needs more lines than box
// can hold is cut after the last line that fits, which ends in "…". The
// block is centred vertically. Every line's advance fits box.Dx() and every
// line's ascent and descent fit box.Dy(); when not even one line (or the
// ellipsis alone) fits, layoutText returns nothing.
func layoutText(face font.Face, s string, box image.Rectangle, align Align) []line {
	m := face.Metrics()
	lineH := m.Height.Ceil()
	asc, desc := m.Ascent.Ceil(), m.Descent.Ceil()
	if lineH <= 0 || box.Dy() < asc+desc {
		return nil
	}
	maxLines := 1 + (box.Dy()-asc-desc)/lineH
	width := fixed.I(box.Dx())
	words := strings.Fields(sanitize(s))
	if len(words) == 0 {
		return nil
	}
	texts, truncated := wrap(face, words, width, maxLines)
	if len(texts) == 0 {
		return nil
	}
	if truncated {
		last := len(texts) - 1
		texts[last] = withEllipsis(face, texts[last], width)
		if texts[last] == "" {
			return nil
		}
	}
	blockH := asc + desc + (len(texts)-1)*lineH
	y := box.Min.Y + (box.Dy()-blockH)/2 + asc
	lines := make([]line, len(texts))
	for i, t := range texts {
		left, w := extent(face, t)
		x := box.Min.X + left.Ceil()
		if align == AlignCenter {
			x += (box.Dx() - w.Ceil()) / 2
		}
		lines[i] = line{text: t, dot: image.Pt(x, y+i*lineH)}
	}
	return lines
}

// sanitize drops control and format characters (a model's text may carry
// ANSI escapes or zero-width joiners) and turns every kind of space into a
// plain one.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
			return -1
		}
		return r
	}, s)
}

// extent returns how far the ink of s starts left of the pen (a 'j' hangs
// left of its origin) and the width s needs: ink and advance together.
func extent(face font.Face, s string) (left, width fixed.Int26_6) {
	b, adv := font.BoundString(face, s)
	left = max(-b.Min.X, 0)
	return left, left + max(adv, b.Max.X)
}

// fits reports whether s fits width without any of its ink outside.
func fits(face font.Face, s string, width fixed.Int26_6) bool {
	_, w := extent(face, s)
	return w.Ceil() <= width.Floor()
}

// wrap fills at most maxLines lines of the given width greedily. It reports
// whether words were left over.
func wrap(face font.Face, words []string, width fixed.Int26_6, maxLines int) ([]string, bool) {
	var lines []string
	cur := ""
	for i := 0; i < len(words); i++ {
		w := words[i]
		candidate := w
		if cur != "" {
			candidate = cur + " " + w
		}
		if fits(face, candidate, width) {
			cur = candidate
			continue
		}
		if cur != "" {
			lines = append(lines, cur)
			cur = ""
			if len(lines) == maxLines {
				return lines, true
			}
			i-- // retry the word on a fresh line
			continue
		}
		// The word alone is too wide: break it at the last rune that fits.
		head, tail := breakWord(face, w, width)
		if head == "" { // not even one rune fits
			return lines, true
		}
		lines = append(lines, head)
		if len(lines) == maxLines {
			return lines, true
		}
		words[i] = tail
		i--
	}
	if cur != "" {
		if len(lines) == maxLines {
			return lines, true
		}
		lines = append(lines, cur)
	}
	return lines, false
}

// breakWord splits w after the longest prefix that fits width.
func breakWord(face font.Face, w string, width fixed.Int26_6) (head, tail string) {
	runes := []rune(w)
	n := 0
	for n < len(runes) && fits(face, string(runes[:n+1]), width) {
		n++
	}
	return string(runes[:n]), string(runes[n:])
}

// withEllipsis returns s ending in "…" within width: it drops whole words
// from the end while more than one is left, then runes, and never leaves a
// dangling space or punctuation mark before the ellipsis. It returns "" when
// not even the ellipsis fits.
func withEllipsis(face font.Face, s string, width fixed.Int26_6) string {
	trim := func(s string) string {
		return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })
	}
	words := strings.Fields(s)
	for n := len(words); n >= 1; n-- {
		if head := trim(strings.Join(words[:n], " ")); fits(face, head+ellipsis, width) && head != "" {
			return head + ellipsis
		}
	}
	runes := []rune(s)
	for n := len(runes); n >= 0; n-- {
		if head := trim(string(runes[:n])); fits(face, head+ellipsis, width) {
			return head + ellipsis
		}
	}
	return ""
}

// drawLines rasterises lines anti-aliased into the scratch gray image, then
// thresholds the pixels of box into dst. The scratch image must cover box.
func drawLines(dst *image.Paletted, scratch *image.Gray, box image.Rectangle, face font.Face, lines []line) {
	if len(lines) == 0 {
		return
	}
	draw.Draw(scratch, box, image.White, image.Point{}, draw.Src)
	d := font.Drawer{Dst: scratch, Src: image.Black, Face: face}
	for _, l := range lines {
		d.Dot = fixed.P(l.dot.X, l.dot.Y)
		d.DrawString(l.text)
	}
	box = box.Intersect(dst.Rect)
	for y := box.Min.Y; y < box.Max.Y; y++ {
		src := scratch.Pix[scratch.PixOffset(box.Min.X, y):]
		out := dst.Pix[dst.PixOffset(box.Min.X, y):]
		for x := 0; x < box.Dx(); x++ {
			if src[x] < Ink {
				out[x] = InkIndex
			}
		}
	}
}
