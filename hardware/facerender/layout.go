package facerender

import (
	"image"
	"math"
)

// Layout is where each part of a frame goes on a canvas of a given size.
// Empty rectangles mean the part is not drawn.
type Layout struct {
	Face   image.Rectangle // the face is centred in it, as large as fits
	Text   image.Rectangle
	Align  Align           // of the text block in Text
	Status image.Rectangle // one line, with a rule above it
	Rule   image.Rectangle // the rule between the face/text area and Status

	TextSize, StatusSize float64 // font sizes in pixels
}

// Layout proportions, in pixels unless said otherwise.
const (
	minTextSize   = 10
	maxTextSize   = 28
	minStatusSize = 9
	margin        = 3
)

// NewLayout returns the layout for a w×h canvas. Wide canvases (at least
// 1.6 times wider than high, such as the 250×122 panel) put the face on the
// left and the text on its right; others put the text under the face. A
// canvas without text gets the face alone, centred; one without status has
// no status line.
func NewLayout(w, h int, hasText, hasStatus bool) Layout {
	var l Layout
	full := image.Rect(0, 0, w, h)
	l.TextSize = clamp(math.Round(math.Sqrt(float64(w*h))/12), minTextSize, maxTextSize)
	l.StatusSize = max(minStatusSize, math.Round(l.TextSize*0.78))

	body := full.Inset(margin)
	if hasStatus {
		statusH := int(math.Ceil(l.StatusSize*1.2)) + 1
		if body.Dy()-statusH >= 2*statusH { // keep the face larger than the status line
			l.Status = image.Rect(body.Min.X, body.Max.Y-statusH, body.Max.X, body.Max.Y)
			l.Rule = image.Rect(body.Min.X, l.Status.Min.Y-2, body.Max.X, l.Status.Min.Y-1)
			body.Max.Y = l.Rule.Min.Y - 1
		}
	}
	if body.Empty() {
		return Layout{TextSize: l.TextSize, StatusSize: l.StatusSize}
	}
	if !hasText {
		l.Face = body
		return l
	}
	if w*10 >= h*16 {
		side := min(body.Dy(), body.Dx()*9/20)
		l.Face = image.Rect(body.Min.X, body.Min.Y, body.Min.X+side, body.Max.Y)
		l.Text = image.Rect(l.Face.Max.X+margin, body.Min.Y, body.Max.X, body.Max.Y)
		l.Align = AlignLeft
		return l
	}
	faceH := body.Dy() * 11 / 20
	l.Face = image.Rect(body.Min.X, body.Min.Y, body.Max.X, body.Min.Y+faceH)
	l.Text = image.Rect(body.Min.X, l.Face.Max.Y+margin, body.Max.X, body.Max.Y)
	l.Align = AlignCenter
	return l
}

func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }
