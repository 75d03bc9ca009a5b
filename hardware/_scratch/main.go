package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomedium"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

func main() {
	fonts := map[string][]byte{"regular": goregular.TTF, "medium": gomedium.TTF, "bold": gobold.TTF, "mono": gomono.TTF}
	names := []string{"regular", "medium", "bold", "mono"}
	img := image.NewGray(image.Rect(0, 0, 500, 400))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	y := 0
	for _, n := range names {
		f, err := opentype.Parse(fonts[n])
		if err != nil {
			panic(err)
		}
		for _, sz := range []float64{10, 11, 12, 13, 14, 16} {
			for _, h := range []font.Hinting{font.HintingNone, font.HintingFull} {
				face, _ := opentype.NewFace(f, &opentype.FaceOptions{Size: sz, DPI: 72, Hinting: h})
				m := face.Metrics()
				y += m.Height.Ceil()
				d := font.Drawer{Dst: img, Src: image.Black, Face: face, Dot: fixed.P(0, y-m.Descent.Ceil())}
				d.DrawString(fmt.Sprintf("%s %v %d: Hello… I can't think right now é ü", n, sz, h))
				if _, ok := face.GlyphAdvance('…'); !ok && sz == 10 {
					fmt.Println(n, "no ellipsis")
				}
			}
		}
	}
	p := image.NewPaletted(img.Bounds(), color.Palette{color.Black, color.White})
	draw.Draw(p, p.Bounds(), img, image.Point{}, draw.Src)
	out, _ := os.Create("/tmp/fonts.png")
	png.Encode(out, p)
	out.Close()
}
