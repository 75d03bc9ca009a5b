package facerender

import (
	"image"
	"math"

	"github.com/axonhq/axon/sdk"
)

// DrawFace draws the face for e, as large as fits, centred in box of dst.
// Nothing is drawn outside box. An expression this package does not know
// (one added to the SDK later) is drawn as idle.
func DrawFace(dst *image.Paletted, box image.Rectangle, e sdk.Expression) {
	box = box.Intersect(dst.Rect)
	side := min(box.Dx(), box.Dy())
	if side <= 0 {
		return
	}
	// The face is designed on a 100×100 grid of units; p maps units to the
	// half-pixel coordinates of a side×side square centred in box.
	p := pen{
		x0:     int64(2*box.Min.X + (box.Dx() - side)),
		y0:     int64(2*box.Min.Y + (box.Dy() - side)),
		unit:   float64(2*side) / 100,
		detail: side >= minDetailSide,
	}
	c := canvas{img: dst, clip: box}
	if !drawExpression(c, p, e) {
		drawExpression(c, p, sdk.ExprIdle)
	}
}

// pen maps design units to half pixels. Each mapping is one multiplication
// and a rounding, so no fused multiply-add can make two architectures
// disagree.
type pen struct {
	x0, y0 int64
	unit   float64
	detail bool // room for blush, tears and sweat
}

// minDetailSide is the face size, in pixels, below which small details
// (blush, a tear, a bead of sweat) are left out: they would be noise.
const minDetailSide = 32

func (p pen) len(u float64) int64 { return int64(math.Round(u * p.unit)) }
func (p pen) x(u float64) int64   { return p.x0 + p.len(u) }
func (p pen) y(u float64) int64   { return p.y0 + p.len(u) }

// stroke is a line half-width: never thinner than one pixel.
func (p pen) stroke(u float64) int64 { return max(p.len(u), 1) }

func (p pen) ellipse(cx, cy, rx, ry float64) ellipse {
	return ellipse{cx: p.x(cx), cy: p.y(cy), rx: max(p.len(rx), 1), ry: max(p.len(ry), 1)}
}

func (p pen) halfEllipse(cx, cy, rx, ry float64, half int) ellipse {
	e := p.ellipse(cx, cy, rx, ry)
	e.half = half
	return e
}

func (p pen) circle(cx, cy, r float64) ellipse { return p.ellipse(cx, cy, r, r) }

func (p pen) segment(ax, ay, bx, by, w float64) segment {
	return segment{ax: p.x(ax), ay: p.y(ay), bx: p.x(bx), by: p.y(by), r: p.stroke(w)}
}

func (p pen) arc(cx, cy, rx, ry, w float64, half int) arc {
	return arc{cx: p.x(cx), cy: p.y(cy), rx: p.len(rx), ry: p.len(ry), w: p.stroke(w), half: half}
}

// polyline joins the points (x0, y0, x1, y1, ...) with thick segments.
func (p pen) polyline(w float64, pts ...float64) union {
	var u union
	for i := 0; i+3 < len(pts); i += 2 {
		u = append(u, p.segment(pts[i], pts[i+1], pts[i+2], pts[i+3], w))
	}
	return u
}

// Design grid: eyes sit at x 30 and 70, the mouth is centred at x 50.
// Every shape keeps clear of the grid's edge by more than a stroke, so
// nothing is clipped by the box.
const (
	eyeL, eyeR = 30.0, 70.0
	stroke     = 3.2 // half-width of lines, in units
)

// drawExpression draws e in design units; it reports false for an
// expression it does not know.
func drawExpression(c canvas, p pen, e sdk.Expression) bool {
	switch e {
	case sdk.ExprIdle:
		openEyes(c, p, 42)
		c.ink(p.arc(50, 66, 12, 7, stroke, +1))
	case sdk.ExprThinking:
		// Eyes rolled up and to the right, a sideways mouth, and a trail of
		// thought bubbles rising towards the text.
		for _, x := range []float64{eyeL, eyeR} {
			c.ink(p.ellipse(x, 44, 12, 14))
			c.erase(p.ellipse(x, 44, 12-2*stroke, 14-2*stroke))
			c.ink(p.circle(x+4, 38, 6))
		}
		c.ink(p.segment(44, 74, 60, 70, stroke))
		c.ink(p.circle(84, 21, 2.5))
		c.ink(p.circle(90, 12.5, 3.5))
		c.ink(p.circle(94, 4.5, 3.5))
	case sdk.ExprSpeaking:
		openEyes(c, p, 40)
		c.ink(p.halfEllipse(50, 62, 13, 15, +1))
	case sdk.ExprHappy:
		for _, x := range []float64{eyeL, eyeR} {
			c.ink(p.arc(x, 46, 11, 11, stroke, -1))
		}
		c.ink(p.halfEllipse(50, 60, 17, 16, +1))
		if p.detail {
			blush(c, p, 50-17, 50+17)
		}
	case sdk.ExprSad:
		for _, x := range []float64{eyeL, eyeR} {
			c.ink(p.ellipse(x, 48, 8, 10.5))
			c.erase(p.circle(x+2.5, 43.5, 2.6))
		}
		c.ink(p.segment(16, 33, 38, 25, stroke))
		c.ink(p.segment(62, 25, 84, 33, stroke))
		c.ink(p.arc(50, 82, 12, 7, stroke, -1))
		if p.detail {
			tear(c, p, 21, 70)
		}
	case sdk.ExprSleeping:
		for _, x := range []float64{eyeL, eyeR} {
			c.ink(p.arc(x, 46, 11, 7, stroke, +1))
		}
		c.ink(p.ellipse(50, 74, 6, 5.5))
		c.erase(p.ellipse(50, 74, 6-stroke, 5.5-stroke))
		zee(c, p, 72, 18, 12)
		zee(c, p, 88, 5, 8)
	case sdk.ExprDegraded:
		// "Can't think right now": crossed-out eyes and a wobbly mouth.
		for _, x := range []float64{eyeL, eyeR} {
			c.ink(p.segment(x-9, 34, x+9, 52, stroke))
			c.ink(p.segment(x-9, 52, x+9, 34, stroke))
		}
		c.ink(p.polyline(stroke, 30, 76, 38, 69, 46, 76, 54, 69, 62, 76, 70, 69))
		if p.detail {
			tear(c, p, 91, 30) // a bead of sweat
		}
	default:
		return false
	}
	return true
}

// openEyes draws two filled eyes with a highlight, centred at height y.
func openEyes(c canvas, p pen, y float64) {
	for _, x := range []float64{eyeL, eyeR} {
		c.ink(p.ellipse(x, y, 10, 13.5))
		c.erase(p.circle(x+3, y-5, 3.2))
	}
}

// tear draws a drop whose round bottom is centred at (x, y).
func tear(c canvas, p pen, x, y float64) {
	c.ink(union{p.circle(x, y, 4), p.segment(x, y-2, x, y-6, 2.4), p.segment(x, y-6, x, y-8, 1.2)})
}

// blush draws three short strokes beside each corner of a grin that spans
// x from grinL to grinR, each stroke a copy of the first moved by a whole
// number of half pixels, so that every row crosses them alike. On a small
// face the strokes are thinned until more than a pixel of paper stays
// between them on every row, and the blush is left out where the strokes
// would touch even at their thinnest or come within two pixels of the grin:
// strokes and grin would read as one bar.
func blush(c canvas, p pen, grinL, grinR float64) {
	pitch := p.len(5)
	w := p.stroke(1.3)
	left, right := p.segment(eyeL-16, 66, eyeL-12.5, 61, 0), p.segment(eyeR+4, 66, eyeR+7.5, 61, 0)
	for w > 0 && !(strokesApart(left, pitch, w) && strokesApart(right, pitch, w)) {
		w--
	}
	// More than 4 half pixels of paper hold two pixel centres.
	if w == 0 || p.x(grinL)-(left.bx+2*pitch+w) <= 4 || (right.ax-w)-p.x(grinR) <= 4 {
		return
	}
	for _, s := range []segment{left, right} {
		for i := int64(0); i < 3; i++ {
			c.ink(segment{ax: s.ax + i*pitch, ay: s.ay, bx: s.bx + i*pitch, by: s.by, r: w})
		}
	}
}

// strokesApart reports whether copies of s, pitch half pixels apart and w
// half pixels in half-width, leave more than one pixel (2 half pixels) of
// paper between them along a row: a row crosses each copy 2w·length/rise
// wide.
func strokesApart(s segment, pitch, w int64) bool {
	dx, dy := s.bx-s.ax, s.by-s.ay
	gap := (pitch - 2) * dy
	return pitch > 2 && gap*gap > 4*w*w*(dx*dx+dy*dy)
}

// zee draws a letter Z of the given size with its top-left corner at (x, y).
// On a small face its strokes are thinned until the wedges of paper between
// each bar and the diagonal stay more than two pixels tall near the
// letter's ends, or the letter is left out: a Z without its wedges is a
// blot.
func zee(c canvas, p pen, x, y, size float64) {
	h, w := p.len(size), p.stroke(stroke*size/12)
	// An eighth of the way in from an end, the wedge runs from the bar's
	// edge (w from its centre line) to the diagonal's (w·√2 from its own,
	// which is 7/8 h from the bar's): 7h/8 − 2.41w half pixels, here in
	// thousandths.
	for w > 0 && 875*h-2410*w <= 4000 {
		w--
	}
	if w == 0 {
		return
	}
	z := p.polyline(0, x, y, x+size, y, x, y+size, x+size, y+size)
	for i, s := range z {
		seg := s.(segment)
		seg.r = w
		z[i] = seg
	}
	c.ink(z)
}
