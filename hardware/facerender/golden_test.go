package facerender_test

import (
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/axonhq/axon/hardware/facerender"
	"github.com/axonhq/axon/sdk"
)

var update = flag.Bool("update", false, "rewrite the golden PNGs under testdata/")

// sampleText is what each expression says in the golden images: what the host
// would plausibly show at that moment of a turn.
var sampleText = map[sdk.Expression]string{
	sdk.ExprIdle:     "",
	sdk.ExprThinking: "Let me think about that for a moment",
	sdk.ExprSpeaking: "The capital of France is Paris, a city of about two million people.",
	sdk.ExprHappy:    "Done! Your answer is ready.",
	sdk.ExprSad:      "I could not find that file.",
	sdk.ExprSleeping: "",
	sdk.ExprDegraded: "", // the renderer supplies "can't think right now"
}

var sampleStatus = map[string]string{"chain": "default", "provider": "glm"}

// goldenSizes are the sizes every expression is pinned at: the Waveshare
// 2.13" panel in landscape, and a square 1.54" panel.
var goldenSizes = []image.Point{{250, 122}, {200, 200}}

func TestGoldenExpressions(t *testing.T) {
	t.Parallel()
	r := newRenderer(t)
	for _, size := range goldenSizes {
		for _, e := range sdk.Expressions {
			name := fmt.Sprintf("%dx%d/%s", size.X, size.Y, e)
			f := sdk.Frame{Expression: e, Text: sampleText[e], Status: sampleStatus}
			t.Run(name, func(t *testing.T) {
				checkGolden(t, r, f, size, name)
			})
		}
	}
}

// TestGoldenText pins the text layout cases a reader would notice first:
// truncation, a word too long for a line, no status, accents.
func TestGoldenText(t *testing.T) {
	t.Parallel()
	r := newRenderer(t)
	long := "Here is a long answer that cannot possibly fit on this small panel, " +
		"so the renderer wraps it word by word and ends the last line it has room for " +
		"with an ellipsis instead of cutting letters in half."
	cases := []struct {
		name  string
		frame sdk.Frame
		size  image.Point
	}{
		{"long-250x122", sdk.Frame{Expression: sdk.ExprSpeaking, Text: long, Status: sampleStatus}, image.Pt(250, 122)},
		{"long-200x200", sdk.Frame{Expression: sdk.ExprSpeaking, Text: long, Status: sampleStatus}, image.Pt(200, 200)},
		{"long-word-250x122", sdk.Frame{Expression: sdk.ExprThinking, Text: "Pneumonoultramicroscopicsilicovolcanoconiosis-and-then-some"}, image.Pt(250, 122)},
		{"no-status-296x128", sdk.Frame{Expression: sdk.ExprHappy, Text: "Déjà vu: naïve café, Ünïcödé ok."}, image.Pt(296, 128)},
		{"tiny-64x32", sdk.Frame{Expression: sdk.ExprSad, Text: "tiny", Status: sampleStatus}, image.Pt(64, 32)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkGolden(t, r, tc.frame, tc.size, "text/"+tc.name)
		})
	}
}

func newRenderer(t *testing.T) *facerender.Renderer {
	t.Helper()
	r, err := facerender.NewRenderer()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkGolden renders f and compares it, as 1-bit pixels, with
// testdata/<name>.png. Gray levels of anti-aliased glyphs may differ by one
// between architectures (FMA), so only the thresholded bits are compared. On a
// mismatch it writes got.png and diff.png (red: extra ink, blue: missing ink)
// to the test's artifact directory (kept with go test -artifacts).
func checkGolden(t *testing.T, r *facerender.Renderer, f sdk.Frame, size image.Point, name string) {
	t.Helper()
	got, err := r.Render(f, size.X, size.Y)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name+".png")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		writePNG(t, path, got)
		return
	}
	want := readPNG(t, path)
	if want.Bounds() != got.Bounds() {
		t.Fatalf("%s: golden is %v, rendered %v", path, want.Bounds(), got.Bounds())
	}
	diff, n := diffInk(want, got)
	if n == 0 {
		return
	}
	dir := t.ArtifactDir()
	writePNG(t, filepath.Join(dir, "got.png"), got)
	writePNG(t, filepath.Join(dir, "diff.png"), diff)
	t.Errorf("%s: %d pixels differ; got.png and diff.png are in %s (run with -update to accept)", path, n, dir)
}

func diffInk(want, got image.Image) (*image.RGBA, int) {
	b := want.Bounds()
	diff := image.NewRGBA(b)
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			w, g := facerender.IsInk(want, x, y), facerender.IsInk(got, x, y)
			c := color.RGBA{255, 255, 255, 255}
			switch {
			case w && g:
				c = color.RGBA{160, 160, 160, 255}
			case g:
				c, n = color.RGBA{255, 0, 0, 255}, n+1
			case w:
				c, n = color.RGBA{0, 0, 255, 255}, n+1
			}
			diff.Set(x, y, c)
		}
	}
	return diff, n
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s is missing: run go test -run %s -update", path, t.Name())
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
