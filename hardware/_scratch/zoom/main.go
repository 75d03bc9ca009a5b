// zoom: nearest-neighbour upscale of a PNG region: zoom in.png out.png scale [x0 y0 x1 y1]
package main

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"strconv"
)

func main() {
	f, _ := os.Open(os.Args[1])
	src, err := png.Decode(f)
	if err != nil {
		panic(err)
	}
	s, _ := strconv.Atoi(os.Args[3])
	r := src.Bounds()
	if len(os.Args) > 7 {
		a := make([]int, 4)
		for i := range a {
			a[i], _ = strconv.Atoi(os.Args[4+i])
		}
		r = image.Rect(a[0], a[1], a[2], a[3]).Intersect(r)
	}
	// grey border around the image to show its bounds
	dst := image.NewRGBA(image.Rect(0, 0, r.Dx()*s+4, r.Dy()*s+4))
	for i := range dst.Pix {
		dst.Pix[i] = 160
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(src.At(x, y))
			for dy := 0; dy < s; dy++ {
				for dx := 0; dx < s; dx++ {
					dst.Set(2+(x-r.Min.X)*s+dx, 2+(y-r.Min.Y)*s+dy, c)
				}
			}
		}
	}
	o, _ := os.Create(os.Args[2])
	png.Encode(o, dst)
	o.Close()
}
