package facerender

import (
	"image"
	"image/color"
)

// Palette indices of the images this package returns: index 0 is ink
// (black), index 1 is paper (white). png.Encode writes such an image as a
// 1-bit PNG.
const (
	InkIndex   uint8 = 0
	PaperIndex uint8 = 1
)

// NewImage returns a w×h 1-bit image filled with paper. Each image gets its
// own palette, so changing one never changes another.
func NewImage(w, h int) *image.Paletted {
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White})
	for i := range img.Pix {
		img.Pix[i] = PaperIndex
	}
	return img
}

// IsInk reports whether the pixel at (x, y) of img is ink: its luminance is
// below half, the rule periph's image1bit uses. Pixels outside img are paper.
func IsInk(img image.Image, x, y int) bool {
	if !(image.Point{X: x, Y: y}.In(img.Bounds())) {
		return false
	}
	if p, ok := img.(*image.Paletted); ok {
		return isDark(p.Palette[p.ColorIndexAt(x, y)])
	}
	return isDark(img.At(x, y))
}

func isDark(c color.Color) bool {
	return color.Gray16Model.Convert(c).(color.Gray16).Y < 0x8000
}
