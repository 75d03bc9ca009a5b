package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/hardware/facerender"
	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

func configure(t *testing.T, values string) (*pngDisplay, error) {
	t.Helper()
	d := newPNGDisplay()
	full, err := sdktest.ApplyDefaults(d.Info().Config, json.RawMessage(values))
	if err != nil {
		return nil, err
	}
	return d, d.Configure(context.Background(), sdk.Config{Values: full})
}

func mustConfigure(t *testing.T, values string) *pngDisplay {
	t.Helper()
	d, err := configure(t, values)
	if err != nil {
		t.Fatalf("Configure(%s): %v", values, err)
	}
	return d
}

func dirConfig(dir string, extra string) string {
	js, _ := json.Marshal(dir)
	return fmt.Sprintf(`{"dir": %s%s}`, js, extra)
}

func files(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
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

func TestConformance(t *testing.T) {
	dir := t.TempDir()
	sdktest.DisplayConformance(t, sdktest.DisplaySuite{
		New:    func() sdk.Display { return newPNGDisplay() },
		Config: json.RawMessage(dirConfig(dir, `, "keep_all": true`)),
	})
	if n := len(files(t, dir)); n < len(sdk.Expressions) {
		t.Errorf("the conformance run left %d files, want one per frame", n)
	}
}

func TestKeepAllNamesFramesInOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d := mustConfigure(t, dirConfig(dir, `, "keep_all": true`))
	ctx := context.Background()
	for _, e := range []sdk.Expression{sdk.ExprThinking, sdk.ExprSpeaking, sdk.ExprHappy, "Odd Expression!"} {
		if err := d.Show(ctx, sdk.Frame{Expression: e, Text: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"frame-000001-thinking.png", "frame-000002-speaking.png",
		"frame-000003-happy.png", "frame-000004-odd_expression_.png",
	}
	if diff := cmp.Diff(want, files(t, dir)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}

	// A restarted plugin continues the numbering.
	d2 := mustConfigure(t, dirConfig(dir, `, "keep_all": true`))
	if err := d2.Show(ctx, sdk.Frame{Expression: sdk.ExprIdle}); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); !slices.Contains(got, "frame-000005-idle.png") || len(got) != 5 {
		t.Errorf("after a restart: %q, want frame-000005-idle.png added", got)
	}
}

func TestLatestIsReplaced(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d := mustConfigure(t, dirConfig(dir, `, "width": 200, "height": 200`))
	ctx := context.Background()
	r, err := facerender.NewRenderer()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []sdk.Frame{
		{Expression: sdk.ExprThinking},
		{Expression: sdk.ExprDegraded, Status: map[string]string{"chain": "default"}},
	} {
		if err := d.Show(ctx, f); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"latest.png"}, files(t, dir)); diff != "" {
			t.Fatalf("files (-want +got):\n%s", diff)
		}
		got := readPNG(t, filepath.Join(dir, "latest.png"))
		want, err := r.Render(f, 200, 200)
		if err != nil {
			t.Fatal(err)
		}
		if got.Bounds() != want.Bounds() {
			t.Fatalf("latest.png is %v, want %v", got.Bounds(), want.Bounds())
		}
		for y := 0; y < 200; y++ {
			for x := 0; x < 200; x++ {
				if facerender.IsInk(got, x, y) != facerender.IsInk(want, x, y) {
					t.Fatalf("latest.png after %s differs from the renderer at (%d,%d)", f.Expression, x, y)
				}
			}
		}
	}
	if err := d.Halt(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"latest.png"}, files(t, dir)); diff != "" {
		t.Errorf("Halt changed the files (-want +got):\n%s", diff)
	}
}

func TestConfigureErrors(t *testing.T) {
	t.Parallel()
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		values, want string
	}{
		{`{"dir": ""}`, "dir must not be empty"},
		{dirConfig(t.TempDir(), `, "width": 4`), "between"},
		{dirConfig(t.TempDir(), `, "height": 100000`), "between"},
		{dirConfig(notDir, ""), "not a directory"},
	} {
		_, err := configure(t, tc.values)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Configure(%s) = %v, want an error about %q", tc.values, err, tc.want)
			continue
		}
		if !errors.Is(err, sdk.ErrPermanent) {
			t.Errorf("Configure(%s) = %v, want a permanent error", tc.values, err)
		}
	}
}

func TestShowFailsWhenDirVanishes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "frames")
	d := mustConfigure(t, dirConfig(dir, ""))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := d.Show(context.Background(), sdk.Frame{Expression: sdk.ExprIdle}); err == nil {
		t.Error("Show into a removed directory succeeded")
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[sdk.Expression]string{
		sdk.ExprDegraded: "degraded",
		"":               "none",
		"Ça va?":         "_a_va_",
		"../etc/passwd":  "___etc_passwd",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
