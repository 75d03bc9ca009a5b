package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/hardware/facerender"
	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

var update = flag.Bool("update", false, "rewrite testdata/frames.txt")

func configure(d *termDisplay, values string) error {
	full, err := sdktest.ApplyDefaults(d.Info().Config, json.RawMessage(values))
	if err != nil {
		return err
	}
	return d.Configure(context.Background(), sdk.Config{Values: full})
}

func ttyConfig(path, extra string) string {
	js, _ := json.Marshal(path)
	return fmt.Sprintf(`{"tty": %s%s}`, js, extra)
}

func newTerm(t *testing.T, extra string) (*termDisplay, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tty")
	d := newTermDisplay()
	if err := configure(d, ttyConfig(path, extra)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, path
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFramesGolden pins what a terminal shows for every expression; the
// golden file is meant to be read by eye.
func TestFramesGolden(t *testing.T) {
	t.Parallel()
	d, path := newTerm(t, `, "clear": false`)
	for _, e := range sdk.Expressions {
		f := sdk.Frame{Expression: e, Text: "feeling " + string(e), Status: map[string]string{"chain": "default", "provider": "glm"}}
		if e == sdk.ExprDegraded {
			f.Text = ""
		}
		if err := d.Show(context.Background(), f); err != nil {
			t.Fatal(err)
		}
	}
	got := read(t, path)
	golden := filepath.Join("testdata", "frames.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestFramesGolden -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("terminal output (-want +got):\n%s", diff)
	}
}

func TestHalfBlocks(t *testing.T) {
	t.Parallel()
	// 3×3, ink marked #:
	//   # . #
	//   # # .
	//   . # .
	img := facerender.NewImage(3, 3)
	for _, p := range []image.Point{{0, 0}, {2, 0}, {0, 1}, {1, 1}, {1, 2}} {
		img.Pix[img.PixOffset(p.X, p.Y)] = facerender.InkIndex
	}
	want := []string{"█▄▀", " ▀"}
	if diff := cmp.Diff(want, halfBlocks(img)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestWrapText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text  string
		width int
		max   int
		want  []string
	}{
		{"hello world", 20, 3, []string{"hello world"}},
		{"hello world", 8, 3, []string{"hello", "world"}},
		{"one two three four", 9, 2, []string{"one two", "three…"}},
		{"abcdefghij", 4, 3, []string{"abcd", "efgh", "ij"}},
		{"abcdefghijklmnop", 4, 3, []string{"abcd", "efgh", "ijk…"}},
		{"  ", 10, 3, nil},
	}
	for _, tc := range cases {
		got := wrapText(tc.text, tc.width, tc.max)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("wrapText(%q, %d, %d) (-want +got):\n%s", tc.text, tc.width, tc.max, diff)
		}
		for _, l := range got {
			if n := len([]rune(l)); n > tc.width {
				t.Errorf("wrapText(%q, %d, %d): line %q is %d runes", tc.text, tc.width, tc.max, l, n)
			}
		}
	}
}

func TestClearAndHalt(t *testing.T) {
	t.Parallel()
	d, path := newTerm(t, "")
	ctx := context.Background()
	if err := d.Show(ctx, sdk.Frame{Expression: sdk.ExprHappy, Text: "done"}); err != nil {
		t.Fatal(err)
	}
	out := read(t, path)
	if !strings.HasPrefix(out, clearScreen) || !strings.HasSuffix(out, "done\n") {
		t.Errorf("frame = %q, want a screen clear, the face, then the text", out)
	}
	if err := d.Halt(ctx); err != nil {
		t.Fatal(err)
	}
	if out := read(t, path); !strings.HasSuffix(out, clearScreen) {
		t.Errorf("Halt did not clear the screen: output ends %q", out[max(0, len(out)-20):])
	}
}

func TestConformance(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tty")
	sdktest.DisplayConformance(t, sdktest.DisplaySuite{
		New:    func() sdk.Display { return newTermDisplay() },
		Config: json.RawMessage(ttyConfig(path, "")),
	})
	if !strings.Contains(read(t, path), "awake again") {
		t.Error("the conformance frames never reached the terminal")
	}
}

func TestConfigureErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		values, want string
	}{
		{ttyConfig(filepath.Join(t.TempDir(), "missing", "tty"), ""), "set tty"},
		{ttyConfig(filepath.Join(t.TempDir(), "tty"), `, "width": 2`), "between"},
		{`{"tty": ""}`, "must not be empty"},
	} {
		err := configure(newTermDisplay(), tc.values)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Configure(%s) = %v, want an error about %q", tc.values, err, tc.want)
			continue
		}
		if !errors.Is(err, sdk.ErrPermanent) {
			t.Errorf("Configure(%s) = %v, want a permanent error", tc.values, err)
		}
	}
}
