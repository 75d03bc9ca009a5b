package facerender

import "image"

// canvas draws filled shapes into a 1-bit image, clipped to a rectangle.
//
// Coordinates are in half pixels: the centre of pixel (x, y) is
// (2x+1, 2y+1). A pixel is inked when its centre lies inside the shape, and
// every inside test is integer arithmetic, so the result is the same on every
// architecture.
type canvas struct {
	img  *image.Paletted
	clip image.Rectangle // pixels
}

// shape reports whether the half-pixel point (x, y) is inside it, and
// bounds it in half pixels so fill visits only the pixels it can touch.
type shape interface {
	inside(x, y int64) bool
	bounds() (x0, y0, x1, y1 int64)
}

func (c canvas) fill(s shape, idx uint8) {
	x0, y0, x1, y1 := s.bounds()
	r := image.Rect(int(floorDiv(x0, 2)), int(floorDiv(y0, 2)), int(floorDiv(x1, 2))+1, int(floorDiv(y1, 2))+1).Intersect(c.clip)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := c.img.Pix[c.img.PixOffset(r.Min.X, y):]
		for x := r.Min.X; x < r.Max.X; x++ {
			if s.inside(int64(2*x+1), int64(2*y+1)) {
				row[x-r.Min.X] = idx
			}
		}
	}
}

func (c canvas) ink(s shape)   { c.fill(s, InkIndex) }
func (c canvas) erase(s shape) { c.fill(s, PaperIndex) }

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// ellipse is a filled axis-aligned ellipse. half limits it to one side of
// its horizontal axis: 0 whole, +1 the lower half (y ≥ cy), -1 the upper.
type ellipse struct {
	cx, cy, rx, ry int64
	half           int
}

func (e ellipse) inside(x, y int64) bool {
	if e.rx <= 0 || e.ry <= 0 {
		return false
	}
	dx, dy := x-e.cx, y-e.cy
	if (e.half > 0 && dy < 0) || (e.half < 0 && dy > 0) {
		return false
	}
	return dx*dx*e.ry*e.ry+dy*dy*e.rx*e.rx < e.rx*e.rx*e.ry*e.ry
}

func (e ellipse) bounds() (int64, int64, int64, int64) {
	return e.cx - e.rx, e.cy - e.ry, e.cx + e.rx, e.cy + e.ry
}

// segment is a thick line with round caps: every point within r of the
// segment from (ax, ay) to (bx, by).
type segment struct {
	ax, ay, bx, by, r int64
}

func (s segment) inside(x, y int64) bool {
	vx, vy := s.bx-s.ax, s.by-s.ay
	px, py := x-s.ax, y-s.ay
	r2 := s.r * s.r
	t := px*vx + py*vy
	l2 := vx*vx + vy*vy
	switch {
	case l2 == 0 || t <= 0:
		return px*px+py*py <= r2
	case t >= l2:
		qx, qy := x-s.bx, y-s.by
		return qx*qx+qy*qy <= r2
	}
	cross := px*vy - py*vx
	return cross*cross <= r2*l2
}

func (s segment) bounds() (int64, int64, int64, int64) {
	return min(s.ax, s.bx) - s.r, min(s.ay, s.by) - s.r, max(s.ax, s.bx) + s.r, max(s.ay, s.by) + s.r
}

// arc is half an elliptical ring of half-width w around the ellipse
// (cx, cy, rx, ry), with round caps at both ends: half +1 is the lower half
// (a smile, a closed eye), -1 the upper half (a frown, a happy eye).
type arc struct {
	cx, cy, rx, ry, w int64
	half              int
}

func (a arc) inside(x, y int64) bool {
	outer := ellipse{cx: a.cx, cy: a.cy, rx: a.rx + a.w, ry: a.ry + a.w, half: a.half}
	inner := ellipse{cx: a.cx, cy: a.cy, rx: a.rx - a.w, ry: a.ry - a.w}
	if outer.inside(x, y) && !inner.inside(x, y) {
		return true
	}
	capL := segment{ax: a.cx - a.rx, ay: a.cy, bx: a.cx - a.rx, by: a.cy, r: a.w}
	capR := segment{ax: a.cx + a.rx, ay: a.cy, bx: a.cx + a.rx, by: a.cy, r: a.w}
	return capL.inside(x, y) || capR.inside(x, y)
}

func (a arc) bounds() (int64, int64, int64, int64) {
	return a.cx - a.rx - a.w, a.cy - a.ry - a.w, a.cx + a.rx + a.w, a.cy + a.ry + a.w
}

// union is inside when any of its shapes is.
type union []shape

func (u union) inside(x, y int64) bool {
	for _, s := range u {
		if s.inside(x, y) {
			return true
		}
	}
	return false
}

func (u union) bounds() (x0, y0, x1, y1 int64) {
	for i, s := range u {
		a, b, c, d := s.bounds()
		if i == 0 {
			x0, y0, x1, y1 = a, b, c, d
			continue
		}
		x0, y0, x1, y1 = min(x0, a), min(y0, b), max(x1, c), max(y1, d)
	}
	return x0, y0, x1, y1
}
