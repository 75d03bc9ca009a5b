package facerender

import (
	"fmt"
	"image"
	"maps"
	"slices"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"

	"github.com/axonhq/axon/sdk"
)

// DegradedText is shown under the degraded face when the frame has no text
// of its own.
const DegradedText = "can't think right now"

// Size limits of Render, in pixels.
const (
	MinSize = 8
	MaxSize = 4096
)

// Renderer draws frames. It parses the font once and caches faces per size;
// it is safe for concurrent use (renders are serialised).
type Renderer struct {
	mu      sync.Mutex
	font    *sfnt.Font
	faces   map[float64]font.Face
	scratch *image.Gray
}

// NewRenderer parses the embedded font.
func NewRenderer() (*Renderer, error) {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return nil, fmt.Errorf("face: parse Go Regular: %w", err)
	}
	return &Renderer{font: f, faces: map[float64]font.Face{}}, nil
}

// Render draws f into a new w×h 1-bit image.
func (r *Renderer) Render(f sdk.Frame, w, h int) (*image.Paletted, error) {
	if w < MinSize || h < MinSize || w > MaxSize || h > MaxSize {
		return nil, fmt.Errorf("face: size %dx%d out of range [%d, %d]", w, h, MinSize, MaxSize)
	}
	r.mu.Lock()
	defer r.mu.Unlock()

	text := f.Text
	if strings.TrimSpace(text) == "" && f.Expression == sdk.ExprDegraded {
		text = DegradedText
	}
	status := StatusLine(f.Status)
	l := NewLayout(w, h, strings.TrimSpace(text) != "", status != "")
	img := NewImage(w, h)
	DrawFace(img, l.Face, f.Expression)

	if r.scratch == nil || r.scratch.Rect != img.Rect {
		r.scratch = image.NewGray(img.Rect)
	}
	if !l.Text.Empty() {
		face, err := r.face(l.TextSize)
		if err != nil {
			return nil, err
		}
		drawLines(img, r.scratch, l.Text, face, layoutText(face, text, l.Text, l.Align))
	}
	if !l.Status.Empty() {
		face, err := r.face(l.StatusSize)
		if err != nil {
			return nil, err
		}
		lines := layoutText(face, status, l.Status, AlignLeft)
		if len(lines) > 0 {
			for y := l.Rule.Min.Y; y < l.Rule.Max.Y; y++ {
				for x := l.Rule.Min.X; x < l.Rule.Max.X; x++ {
					img.Pix[img.PixOffset(x, y)] = InkIndex
				}
			}
		}
		drawLines(img, r.scratch, l.Status, face, lines)
	}
	return img, nil
}

// face returns the cached face of the given pixel size.
func (r *Renderer) face(size float64) (font.Face, error) {
	if f, ok := r.faces[size]; ok {
		return f, nil
	}
	f, err := opentype.NewFace(r.font, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil, fmt.Errorf("face: font face of size %v: %w", size, err)
	}
	r.faces[size] = f
	return f, nil
}

// StatusLine formats a status map as one line, "key value" pairs sorted by
// key and joined by " · ". Empty values are left out.
func StatusLine(status map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(status)) {
		if v := strings.TrimSpace(status[k]); v != "" {
			parts = append(parts, k+" "+v)
		}
	}
	return strings.Join(parts, " · ")
}
