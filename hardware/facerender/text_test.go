package facerender

import (
	"fmt"
	"image"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"

	"github.com/axonhq/axon/sdk"
)

func testFace(t *testing.T, size float64) font.Face {
	t.Helper()
	r, err := NewRenderer()
	if err != nil {
		t.Fatal(err)
	}
	f, err := r.face(size)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func texts(lines []line) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l.text)
	}
	return out
}

func TestLayoutTextWraps(t *testing.T) {
	t.Parallel()
	f := testFace(t, 14)
	width := func(s string) int { _, w := extent(f, s); return w.Ceil() }
	lineH := f.Metrics().Height.Ceil()
	threeLines := image.Rect(0, 0, width("hello world"), 3*lineH)
	cases := []struct {
		name string
		text string
		box  image.Rectangle
		want []string
	}{
		{"fits on one line", "hello world", threeLines, []string{"hello world"}},
		{"wraps at spaces", "hello world again", threeLines, []string{"hello world", "again"}},
		{"collapses whitespace and drops controls", " hello\t\n world\x1b\u200d ", threeLines, []string{"hello world"}},
		{"breaks a long word between runes", "helloworldhelloworld", image.Rect(0, 0, max(width("hello"), width("world")), 5*lineH), []string{"hello", "world", "hello", "world"}},
		{"ellipsis on the last line", "one two three four five six seven", image.Rect(0, 0, width("one two"), 2*lineH), []string{"one two", "three…"}},
		{"ellipsis replaces trailing punctuation", "hello, world and more", image.Rect(0, 0, width("hello, world"), lineH), []string{"hello…"}},
		{"empty text", "  \n ", threeLines, nil},
		{"box lower than a line", "hello", image.Rect(0, 0, 100, lineH/2), nil},
		{"box narrower than the ellipsis", "hello", image.Rect(0, 0, 2, 3*lineH), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// A face of its own: an opentype face is not safe for
			// concurrent use (the Renderer serialises its renders).
			got := texts(layoutText(testFace(t, 14), tc.text, tc.box, AlignLeft))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

// oddSizes are canvases a display plugin might be configured with,
// including awkward ones.
var oddSizes = []image.Point{
	{250, 122}, {122, 250}, {296, 128}, {200, 200}, {400, 300}, {212, 104},
	{64, 32}, {33, 17}, {17, 33}, {MinSize, MinSize}, {1000, 40}, {40, 300}, {127, 61},
}

var hardTexts = []string{
	"The quick brown fox jumps over the lazy dog. " + strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 20),
	strings.Repeat("W", 300),
	"Ünïcödé façade — “quotes”, ellipsis… and Jj gy descenders, ÉÅÇ ascenders",
	"日本語のテキスト 😀 mixed with ASCII and emoji 🚀🚀🚀",
	"x",
}

// TestLayoutTextNeverClips checks, for every size and hard text, that each
// laid-out line's inked bounds lie inside its box: text is wrapped or
// shortened, never cut by the box edge.
func TestLayoutTextNeverClips(t *testing.T) {
	t.Parallel()
	r, err := NewRenderer()
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range oddSizes {
		l := NewLayout(size.X, size.Y, true, true)
		for ti, text := range hardTexts {
			for _, part := range []struct {
				name string
				box  image.Rectangle
				pt   float64
			}{{"text", l.Text, l.TextSize}, {"status", l.Status, l.StatusSize}} {
				t.Run(fmt.Sprintf("%dx%d/%d/%s", size.X, size.Y, ti, part.name), func(t *testing.T) {
					f, err := r.face(part.pt)
					if err != nil {
						t.Fatal(err)
					}
					for _, ln := range layoutText(f, text, part.box, l.Align) {
						b, adv := font.BoundString(f, ln.text)
						b = b.Add(fixed.P(ln.dot.X, ln.dot.Y))
						ink := image.Rect(b.Min.X.Floor(), b.Min.Y.Floor(), b.Max.X.Ceil(), b.Max.Y.Ceil())
						if !ink.In(part.box) {
							t.Errorf("line %q inks %v, outside its box %v", ln.text, ink, part.box)
						}
						if adv.Ceil() > part.box.Dx() {
							t.Errorf("line %q advances %d px, box is %d wide", ln.text, adv.Ceil(), part.box.Dx())
						}
					}
				})
			}
		}
	}
}

// TestLayoutTextKeepsEveryWord checks that text which fits loses nothing and
// text which does not ends in an ellipsis after a prefix of the words.
func TestLayoutTextKeepsEveryWord(t *testing.T) {
	t.Parallel()
	f := testFace(t, 14)
	text := "the rain in spain stays mainly in the plain"
	words := strings.Fields(text)
	for h := 0; h <= 200; h += 7 {
		box := image.Rect(0, 0, 90, h)
		lines := texts(layoutText(f, text, box, AlignLeft))
		if len(lines) == 0 {
			continue
		}
		joined := strings.Fields(strings.Join(lines, " "))
		last := joined[len(joined)-1]
		if !strings.HasSuffix(last, ellipsis) {
			if diff := cmp.Diff(words, joined); diff != "" {
				t.Errorf("height %d: untruncated text lost words (-want +got):\n%s", h, diff)
			}
			continue
		}
		joined[len(joined)-1] = strings.TrimSuffix(last, ellipsis)
		if joined[len(joined)-1] == "" {
			joined = joined[:len(joined)-1]
		}
		for i, w := range joined {
			if w != words[i] {
				t.Errorf("height %d: truncated text %q is not a prefix of the words", h, lines)
				break
			}
		}
	}
}

// TestRenderStaysInLayout renders every expression with hard texts at odd
// sizes and checks that no ink falls outside the layout's regions: the face
// is not clipped and nothing spills over.
func TestRenderStaysInLayout(t *testing.T) {
	t.Parallel()
	r, err := NewRenderer()
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{"chain": "default", "provider": "a-provider-with-a-very-long-name-indeed"}
	for _, size := range oddSizes {
		l := NewLayout(size.X, size.Y, true, true)
		for _, e := range sdk.Expressions {
			img, err := r.Render(sdk.Frame{Expression: e, Text: hardTexts[0], Status: status}, size.X, size.Y)
			if err != nil {
				t.Fatal(err)
			}
			if img.Bounds() != image.Rect(0, 0, size.X, size.Y) {
				t.Fatalf("%v: image bounds %v", size, img.Bounds())
			}
			for y := 0; y < size.Y; y++ {
				for x := 0; x < size.X; x++ {
					p := image.Pt(x, y)
					if IsInk(img, x, y) && !p.In(l.Face) && !p.In(l.Text) && !p.In(l.Status) && !p.In(l.Rule) {
						t.Fatalf("%dx%d %s: ink at %v outside the layout %+v", size.X, size.Y, e, p, l)
					}
				}
			}
		}
	}
}

func TestFacesKeepClearOfTheirBox(t *testing.T) {
	t.Parallel()
	for _, side := range []int{12, 31, 50, 97, 122, 300} {
		for _, e := range sdk.Expressions {
			img := NewImage(side, side)
			DrawFace(img, img.Rect, e)
			inked := 0
			for y := 0; y < side; y++ {
				for x := 0; x < side; x++ {
					if !IsInk(img, x, y) {
						continue
					}
					inked++
					if side >= 50 && (x == 0 || y == 0 || x == side-1 || y == side-1) {
						t.Errorf("%s at %d px: ink on the box edge at (%d,%d): the face is clipped", e, side, x, y)
					}
				}
			}
			if inked == 0 {
				t.Errorf("%s at %d px: nothing drawn", e, side)
			}
		}
	}
}

func TestUnknownExpressionDrawsIdle(t *testing.T) {
	t.Parallel()
	idle, other := NewImage(100, 100), NewImage(100, 100)
	DrawFace(idle, idle.Rect, sdk.ExprIdle)
	DrawFace(other, other.Rect, sdk.Expression("confused"))
	if diff := cmp.Diff(idle.Pix, other.Pix); diff != "" {
		t.Errorf("unknown expression differs from idle:\n%s", diff)
	}
}

func TestExpressionsDiffer(t *testing.T) {
	t.Parallel()
	seen := map[string]sdk.Expression{}
	for _, e := range sdk.Expressions {
		img := NewImage(122, 122)
		DrawFace(img, img.Rect, e)
		if prev, dup := seen[string(img.Pix)]; dup {
			t.Errorf("%s draws the same face as %s", e, prev)
		}
		seen[string(img.Pix)] = e
	}
}

func TestRenderRejectsBadSizes(t *testing.T) {
	t.Parallel()
	r, err := NewRenderer()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []image.Point{{0, 122}, {250, MinSize - 1}, {MaxSize + 1, 10}, {-5, -5}} {
		if _, err := r.Render(sdk.Frame{Expression: sdk.ExprIdle}, s.X, s.Y); err == nil {
			t.Errorf("Render(%v) = nil error, want one", s)
		}
	}
}

func TestStatusLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   map[string]string
		want string
	}{
		{nil, ""},
		{map[string]string{"provider": "glm", "chain": "default"}, "chain default · provider glm"},
		{map[string]string{"chain": " ", "provider": "ollama"}, "provider ollama"},
	}
	for _, tc := range cases {
		if got := StatusLine(tc.in); got != tc.want {
			t.Errorf("StatusLine(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDegradedGetsDefaultText(t *testing.T) {
	t.Parallel()
	r, err := NewRenderer()
	if err != nil {
		t.Fatal(err)
	}
	bare, err := r.Render(sdk.Frame{Expression: sdk.ExprDegraded}, 250, 122)
	if err != nil {
		t.Fatal(err)
	}
	explicit, err := r.Render(sdk.Frame{Expression: sdk.ExprDegraded, Text: DegradedText}, 250, 122)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(explicit.Pix, bare.Pix); diff != "" {
		t.Errorf("degraded frame without text does not show %q", DegradedText)
	}
}

func BenchmarkRender(b *testing.B) {
	r, err := NewRenderer()
	if err != nil {
		b.Fatal(err)
	}
	f := sdk.Frame{
		Expression: sdk.ExprSpeaking,
		Text:       "The capital of France is Paris, a city of about two million people.",
		Status:     map[string]string{"chain": "default", "provider": "glm"},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Render(f, 250, 122); err != nil {
			b.Fatal(err)
		}
	}
}
