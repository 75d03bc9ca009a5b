package ssd1680

import (
	"fmt"
	"image"
	"image/color"
)

// Native geometry of the 2.13" panel: 122 source lines (RAM X, one bit per
// pixel, rows padded to 16 bytes) by 250 gate lines (RAM Y).
const (
	NativeWidth  = 122
	NativeHeight = 250
	RowBytes     = (NativeWidth + 7) / 8
	FrameBytes   = RowBytes * NativeHeight // 4000
)

// Rotation is how the logical image is laid on the panel, in degrees.
//
//   - Rot0: landscape 250×122; logical (x, y) is RAM (X 121−y, Y x), the
//     orientation of periph's waveshare2in13v4 with Origin TopRight.
//   - Rot180: landscape, upside down from Rot0: RAM (X y, Y 249−x).
//   - Rot90: portrait 122×250 in the controller's own order: RAM (X x, Y y).
//   - Rot270: portrait, upside down from Rot90: RAM (X 121−x, Y 249−y).
type Rotation int

const (
	Rot0   Rotation = 0
	Rot90  Rotation = 90
	Rot180 Rotation = 180
	Rot270 Rotation = 270
)

// Valid reports an error for an angle other than 0, 90, 180 or 270.
func (r Rotation) Valid() error {
	switch r {
	case Rot0, Rot90, Rot180, Rot270:
		return nil
	}
	return fmt.Errorf("ssd1680: rotation %d: want 0, 90, 180 or 270", int(r))
}

// Bounds is the logical image size for r.
func (r Rotation) Bounds() image.Rectangle {
	if r == Rot90 || r == Rot270 {
		return image.Rect(0, 0, NativeWidth, NativeHeight)
	}
	return image.Rect(0, 0, NativeHeight, NativeWidth)
}

// ram maps logical (x, y) to RAM (X, Y).
func (r Rotation) ram(x, y int) (int, int) {
	switch r {
	case Rot180:
		return y, NativeHeight - 1 - x
	case Rot90:
		return x, y
	case Rot270:
		return NativeWidth - 1 - x, NativeHeight - 1 - y
	}
	return NativeWidth - 1 - y, x
}

// Pack converts img to the controller's RAM format in dst (FrameBytes long):
// a bit per pixel, most significant bit first, 1 white and 0 black, padding
// bits white. A pixel is black when its luminance is below half. img must be
// exactly r.Bounds() in size; its origin may be anywhere.
func Pack(dst []byte, img image.Image, r Rotation) error {
	b := img.Bounds()
	if b.Size() != r.Bounds().Size() {
		return fmt.Errorf("ssd1680: image is %dx%d, the panel at rotation %d is %dx%d",
			b.Dx(), b.Dy(), int(r), r.Bounds().Dx(), r.Bounds().Dy())
	}
	if len(dst) != FrameBytes {
		return fmt.Errorf("ssd1680: frame buffer is %d bytes, want %d", len(dst), FrameBytes)
	}
	for i := range dst {
		dst[i] = 0xFF
	}
	dark := darkFunc(img)
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			if dark(b.Min.X+x, b.Min.Y+y) {
				rx, ry := r.ram(x, y)
				dst[ry*RowBytes+rx/8] &^= 0x80 >> (rx % 8)
			}
		}
	}
	return nil
}

// darkFunc returns a per-pixel test for img, reading the pixels directly for
// paletted images (what the face renderer produces) and gray ones instead of
// converting a colour per pixel.
func darkFunc(img image.Image) func(x, y int) bool {
	switch p := img.(type) {
	case *image.Paletted:
		var dark [256]bool
		for i, c := range p.Palette {
			dark[i] = isDark(c)
		}
		return func(x, y int) bool { return dark[p.Pix[p.PixOffset(x, y)]] }
	case *image.Gray:
		return func(x, y int) bool { return p.Pix[p.PixOffset(x, y)] < 0x80 }
	}
	return func(x, y int) bool { return isDark(img.At(x, y)) }
}

func isDark(c color.Color) bool {
	return color.Gray16Model.Convert(c).(color.Gray16).Y < 0x8000
}
