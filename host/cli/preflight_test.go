package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/axonhq/axon/host/internal/testbin"
)

var (
	pngOnce sync.Once
	pngErr  error
)

// pngPlugin is the png display binary, built once into a directory of
// binDir that no other test lists.
func pngPlugin(t *testing.T) string {
	t.Helper()
	extra := filepath.Join(binDir, "extra")
	pngOnce.Do(func() {
		pngErr = testbin.BuildInto(extra, testbin.Target{Name: "axon-display-png", Pkg: "../../plugins/display-png"})
	})
	if pngErr != nil {
		t.Fatal(pngErr)
	}
	return filepath.Join(extra, "axon-display-png")
}

// pluginDirWithPNG is a plugin_dir holding the openai provider and the png
// display.
func pluginDirWithPNG(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, link := range []string{filepath.Join(binDir, "axon-provider-openai"), pngPlugin(t)} {
		if err := os.Symlink(link, filepath.Join(dir, filepath.Base(link))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// pngDisplay is a png display block drawing into dir.
func pngDisplay(dir string) string {
	return `
display "face" {
  plugin = "png"
  dir    = "` + dir + `"
  grant {
    read_write = ["` + dir + `"]
  }
}
`
}

// moreProviders is n more openai provider blocks, p1…pn.
func moreProviders(url string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "provider \"p%d\" {\n  plugin   = \"openai\"\n  base_url = \"%s/v1\"\n  model    = \"m\"\n}\n", i+1, url)
	}
	return b.String()
}

// frames lists what a png display wrote into dir (nothing when dir does not
// exist).
func frames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestCheckDoesNotDrawOnDisplays: check validates a display block without
// configuring the plugin, so nothing is drawn (a real e-paper panel would
// flash and fight a running daemon for its bus), and says the hardware was
// not opened.
func TestCheckDoesNotDrawOnDisplays(t *testing.T) {
	up := openaiUpstream(t, 200, "x")
	png := filepath.Join(t.TempDir(), "png")
	// Providers are checked first, one at a time: time enough for a face
	// to draw on a configured display.
	cfg := writeConfig(t, chainConfig(up.URL)+moreProviders(up.URL, 3)+pngDisplay(png))
	code, out, errOut := run(t, nil, "check", "--plugin-dir", pluginDirWithPNG(t), "--config", cfg)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if got := frames(t, png); len(got) > 0 {
		t.Errorf("check drew on the display: %s holds %v", png, got)
	}
	if strings.Contains(errOut, "[WARN]") {
		t.Errorf("check warns:\n%s", errOut)
	}
	if !strings.Contains(out, "ok  display  face             axon-display-png") || !strings.Contains(out, "(not opened)") {
		t.Errorf("check does not say the display was left unopened:\n%s", out)
	}
}
