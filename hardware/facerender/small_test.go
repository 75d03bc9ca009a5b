package facerender_test

import (
	"fmt"
	"image"
	"testing"

	"github.com/axonhq/axon/hardware/facerender"
	"github.com/axonhq/axon/sdk"
)

// smallCanvases are the canvases a face must stay legible on when it is
// small: the terminal display's default 64×40, and every square side from
// the size details start at (32) to well past the terminal's.
func smallCanvases() []image.Point {
	c := []image.Point{{64, 40}}
	for s := 32; s <= 128; s++ {
		c = append(c, image.Pt(s, s))
	}
	return c
}

// faceGrid maps the face's 100-unit design grid onto the pixels of a face
// drawn by DrawFace into a whole canvas.
type faceGrid struct {
	img  *image.Paletted
	x0   float64 // canvas pixels left of the face's square
	y0   float64
	side float64
}

func drawFace(size image.Point, e sdk.Expression) faceGrid {
	img := facerender.NewImage(size.X, size.Y)
	facerender.DrawFace(img, img.Rect, e)
	side := min(size.X, size.Y)
	return faceGrid{img: img, x0: float64(size.X-side) / 2, y0: float64(size.Y-side) / 2, side: float64(side)}
}

// px is the pixel the design point (ux, uy) falls in.
func (g faceGrid) px(ux, uy float64) image.Point {
	return image.Pt(int(g.x0+ux*g.side/100), int(g.y0+uy*g.side/100))
}

// box is the pixels whose centres lie inside the design rectangle.
func (g faceGrid) box(ux0, uy0, ux1, uy1 float64) image.Rectangle {
	unit := func(v, off float64) float64 { return (v + 0.5 - off) * 100 / g.side }
	var r image.Rectangle
	first := true
	b := g.img.Rect
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if ux, uy := unit(float64(x), g.x0), unit(float64(y), g.y0); ux >= ux0 && ux <= ux1 && uy >= uy0 && uy <= uy1 {
				p := image.Rect(x, y, x+1, y+1)
				if first {
					r, first = p, false
				}
				r = r.Union(p)
			}
		}
	}
	return r
}

func (g faceGrid) ink(x, y int) bool {
	return image.Pt(x, y).In(g.img.Rect) && facerender.IsInk(g.img, x, y)
}

// TestSmallHappyKeepsBlushApartFromGrin: at the sizes a terminal draws, the
// happy face's grin stands alone on its rows, with at least two pixels of
// paper on either side, and the blush strokes beside it stay apart from
// each other (or are left out). At 64×40 the strokes used to fuse into a bar
// one pixel from the grin, and grin and blush read as one long mouth.
func TestSmallHappyKeepsBlushApartFromGrin(t *testing.T) {
	t.Parallel()
	for _, size := range smallCanvases() {
		t.Run(fmt.Sprintf("%dx%d", size.X, size.Y), func(t *testing.T) {
			g := drawFace(size, sdk.ExprHappy)
			centre := g.px(50, 68).X
			mouth := g.box(30, 60, 70, 76)
			for y := mouth.Min.Y; y < mouth.Max.Y; y++ {
				if !g.ink(centre, y) {
					continue
				}
				a, b := centre, centre
				for g.ink(a-1, y) {
					a--
				}
				for g.ink(b+1, y) {
					b++
				}
				for _, x := range []int{a - 2, a - 1, b + 1, b + 2} {
					if g.ink(x, y) {
						t.Errorf("row %d: ink at column %d, within two pixels of the grin (columns %d-%d)\n%s", y, x, a, b, picture(g.img))
						return
					}
				}
			}
			// A run of ink wider than the strokes' pitch spans two strokes.
			pitch := 5 * g.side / 100
			for name, cheek := range map[string]image.Rectangle{"left": g.box(5, 55, 31, 72), "right": g.box(69, 55, 95, 72)} {
				for y := cheek.Min.Y; y < cheek.Max.Y; y++ {
					run := 0
					for x := cheek.Min.X; x < cheek.Max.X; x++ {
						run++
						if !g.ink(x, y) {
							run = 0
						}
						if float64(run) > pitch+0.5 {
							t.Errorf("row %d: the %s blush strokes fuse into a bar (%d pixels at column %d)\n%s", y, name, run, x, picture(g.img))
							return
						}
					}
				}
			}
		})
	}
}

// TestSmallSleepingZeesStayLetters: each Z of the sleeping face keeps paper
// between its bars at both ends (the wedges that make it a Z), or is left
// out. At 64×40 both letters used to fill into one blot.
func TestSmallSleepingZeesStayLetters(t *testing.T) {
	t.Parallel()
	for _, size := range smallCanvases() {
		t.Run(fmt.Sprintf("%dx%d", size.X, size.Y), func(t *testing.T) {
			g := drawFace(size, sdk.ExprSleeping)
			for _, z := range []struct{ x, y, size float64 }{{72, 18, 12}, {88, 5, 8}} {
				box := g.box(z.x-4, z.y-4, z.x+z.size+4, z.y+z.size+4)
				inked := false
				for _, u := range []float64{z.x + z.size/8, z.x + z.size*7/8} {
					x := g.px(u, 0).X
					runs := 0
					for y := box.Min.Y; y < box.Max.Y; y++ {
						if g.ink(x, y) && !g.ink(x, y-1) {
							runs++
						}
					}
					inked = inked || runs > 0
					if inked && runs != 2 {
						t.Errorf("the Z at (%v, %v): column %d crosses %d strokes, want its two bars apart\n%s", z.x, z.y, x, runs, picture(g.img))
						return
					}
				}
			}
		})
	}
}

// picture draws img as text (# ink, . paper) for a failure message.
func picture(img *image.Paletted) string {
	b := img.Rect
	out := make([]byte, 0, (b.Dx()+1)*b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := byte('.')
			if facerender.IsInk(img, x, y) {
				c = '#'
			}
			out = append(out, c)
		}
		out = append(out, '\n')
	}
	return string(out)
}
