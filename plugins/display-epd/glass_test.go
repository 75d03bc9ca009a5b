package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/hardware/ssd1680/ssd1680test"
	"github.com/axonhq/axon/sdk"
)

// process is one plugin process driving the shared fake panel p: a new
// epd, configured with values, after the previous process let go of the
// panel.
func process(t *testing.T, p *ssd1680test.Panel, values string) *epd {
	t.Helper()
	p.Reopen()
	e := newEPD(&fakeBoard{panel: p}, p.Clock)
	if err := configure(e, values); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return e
}

func show(t *testing.T, e *epd, x sdk.Expression) {
	t.Helper()
	if err := e.Show(context.Background(), sdk.Frame{Expression: x, Text: string(x)}); err != nil {
		t.Fatalf("Show(%s): %v", x, err)
	}
}

func kinds(p *ssd1680test.Panel) []string {
	var out []string
	for _, r := range p.Refreshes() {
		out = append(out, r.Kind)
	}
	return out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestStateFileCarriesTheGlassAcrossProcesses: a process that ends with
// Close (the host's idle_stop, or axon stopping) leaves the frame on the
// glass in the state file, and the next process starts with a partial
// refresh whose reference is that frame (the fake panel reports any other),
// with the full-refresh count going on. A process that dies without Close
// leaves nothing, so the one after it starts with a full refresh.
func TestStateFileCarriesTheGlassAcrossProcesses(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "glass.json")
	values := `{"full_refresh_every": 3, "state_file": "` + state + `"}`
	p := ssd1680test.New(ssd1680test.Options{})

	first := process(t, p, values)
	show(t, first, sdk.ExprThinking)
	show(t, first, sdk.ExprSpeaking)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if !p.Asleep() {
		t.Error("Close left the panel awake")
	}
	if !exists(state) {
		t.Fatal("Close wrote no state file")
	}

	second := process(t, p, values)
	if exists(state) {
		t.Error("the state file is still there once a process has taken it")
	}
	show(t, second, sdk.ExprHappy)
	show(t, second, sdk.ExprIdle) // a full refresh every third, as in one process
	// Dies without Close: whatever it drew next, no file vouches for it.
	show(t, second, sdk.ExprThinking)

	third := process(t, p, values)
	defer third.Close()
	show(t, third, sdk.ExprSpeaking)

	want := []string{"full", "partial", "partial", "full", "partial", "full"}
	if diff := cmp.Diff(want, kinds(p)); diff != "" {
		t.Errorf("refreshes over three processes (-want +got):\n%s", diff)
	}
	if v := p.Violations(); len(v) > 0 {
		t.Errorf("protocol violations: %q", v)
	}
}

// TestUnusableStateFileMeansAFullRefresh: a file that is not this
// plugin's state for this panel is removed and not used; the process
// starts with a full refresh, as without a file.
func TestUnusableStateFileMeansAFullRefresh(t *testing.T) {
	t.Parallel()
	frame, _ := json.Marshal(make([]byte, 4000))
	for _, tc := range []struct{ name, content string }{
		{"not JSON", "garbage"},
		{"truncated", `{"version": 1, "panel": "v4", "frame": "AAAA`},
		{"another version", `{"version": 2, "panel": "v4", "frame": ` + string(frame) + `}`},
		{"another panel", `{"version": 1, "panel": "v3", "frame": ` + string(frame) + `}`},
		{"short frame", `{"version": 1, "panel": "v4", "frame": "AAAA"}`},
		{"negative count", `{"version": 1, "panel": "v4", "frame": ` + string(frame) + `, "since_full": -1}`},
		{"too large", `{"version": 1, "panel": "v4", "pad": "` + strings.Repeat("x", maxGlassFile) + `"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			state := filepath.Join(t.TempDir(), "glass.json")
			if err := os.WriteFile(state, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			p := ssd1680test.New(ssd1680test.Options{})
			e := process(t, p, `{"state_file": "`+state+`"}`)
			defer e.Close()
			if exists(state) {
				t.Error("the unusable state file was left in place")
			}
			show(t, e, sdk.ExprIdle)
			if diff := cmp.Diff([]string{"full"}, kinds(p)); diff != "" {
				t.Errorf("refreshes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStateFileNeedsAWritableDirectory: Configure says at once, not at the
// first stop, that the state cannot be kept.
func TestStateFileNeedsAWritableDirectory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, path, want string }{
		{"relative", "glass.json", "absolute"},
		{"no directory", filepath.Join(t.TempDir(), "missing", "glass.json"), "grant it read_write"},
		{"a directory", t.TempDir(), "not a regular file"},
	} {
		p := ssd1680test.New(ssd1680test.Options{})
		e := newEPD(&fakeBoard{panel: p}, p.Clock)
		err := configure(e, `{"state_file": "`+tc.path+`"}`)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Configure = %v, want an error about %q", tc.name, err, tc.want)
		}
	}
}
