package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	oldAPIOnce sync.Once
	oldAPIErr  error
)

// oldAPIPlugin is a provider binary that speaks only SDK API v0
// (host/internal/testplugin, stamped), built once.
func oldAPIPlugin(t *testing.T) string {
	t.Helper()
	path := filepath.Join(binDir, "extra", "axon-provider-old")
	oldAPIOnce.Do(func() {
		cmd := exec.Command("go", "build", "-ldflags=-X main.apiVersions=v0", "-o", path, "../internal/testplugin")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			oldAPIErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if oldAPIErr != nil {
		t.Fatal(oldAPIErr)
	}
	return path
}

// serveConfig writes an axon.hcl listening on a free port, with its own
// state and plugin directories: text starts on line 6.
func serveConfig(t *testing.T, pluginDir, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "axon.hcl")
	full := fmt.Sprintf("axon {\n  listen     = \"127.0.0.1:0\"\n  state_dir  = %q\n  plugin_dir = %q\n}\n%s", t.TempDir(), pluginDir, text)
	if err := os.WriteFile(p, []byte(full), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// serveBriefly runs `axon serve`; one that starts is ended by the deadline,
// so the test fails rather than hangs.
func serveBriefly(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return runContext(ctx, t, append([]string{"serve"}, args...)...)
}

// mockProvider (lines 6 to 11 of serveConfig) is the chain every case has.
const mockProvider = `provider "mock" {
  plugin   = "openai"
  base_url = "http://127.0.0.1:1/v1"
  model    = "m"
}
chain "default" { providers = [provider.mock] }
`

const zeroSHA = "0000000000000000000000000000000000000000000000000000000000000000"

// TestServeRefusesWhatCheckRefuses: every plugin error `axon check`
// reports — a pin the binary does not match, another kind, another SDK
// API, a block its plugin's schema refuses — stops `axon serve` before it
// listens, with the same diagnostic on the same line: on a first start,
// which inspects the binaries, and on a start after check, which trusts
// the cached Info and starts no plugin.
func TestServeRefusesWhatCheckRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		text  string // after mockProvider: starts on line 12
		lock  string // axon.lock.hcl beside the configuration, "" for none
		links map[string]func(t *testing.T) string
		want  string // regexp of the diagnostic
	}{
		{
			name: "a lock pin the binary does not match",
			lock: "plugin \"axon-provider-openai\" {\n  sha256 = \"" + zeroSHA + "\"\n}\n",
			want: `Error: Plugin binary does not match its pin\s+on \S*axon\.hcl line 7, in provider "mock".*axon\.lock\.hcl pins axon-provider-openai to sha256 0{64}, but the binary in plugin_dir has sha256 [0-9a-f]{64}\..*axon plugins lock`,
		},
		{
			name: "a block pin the binary does not match",
			text: "provider \"pinned\" {\n  plugin   = \"openai\"\n  sha256   = \"" + zeroSHA + "\"\n  base_url = \"http://127.0.0.1:1/v1\"\n  model    = \"m\"\n}\n",
			want: `Error: Plugin binary does not match its pin\s+on \S*axon\.hcl line 13, in provider "pinned".*The block pins axon-provider-openai to sha256 0{64}, but the binary in plugin_dir has sha256 [0-9a-f]{64}`,
		},
		{
			name:  "a binary of another kind",
			text:  "display \"fake\" {}\n",
			links: map[string]func(*testing.T) string{"axon-display-fake": func(*testing.T) string { return filepath.Join(binDir, "axon-provider-openai") }},
			want:  `Error: Wrong plugin kind\s+on \S*axon\.hcl line 12, in display "fake".*axon-display-fake serves a provider plugin, not a display`,
		},
		{
			name:  "a binary of another SDK API",
			text:  "provider \"old\" {\n  plugin   = \"old\"\n  base_url = \"http://127.0.0.1:1/v1\"\n}\n",
			links: map[string]func(*testing.T) string{"axon-provider-old": oldAPIPlugin},
			want:  `Error: Incompatible plugin API\s+on \S*axon\.hcl line 13, in provider "old".*the plugin speaks SDK API v0, this axon speaks v1`,
		},
		{
			name: "an attribute the schema does not declare",
			text: "provider \"typo\" {\n  plugin   = \"openai\"\n  base_url = \"http://127.0.0.1:1/v1\"\n  model    = \"m\"\n  modle    = \"m\"\n}\n",
			want: `Error: Unsupported argument\s+on \S*axon\.hcl line 16, in provider "typo".*"modle"`,
		},
		{
			name:  "an attribute of the wrong type",
			text:  "display \"face\" {\n  plugin = \"png\"\n  dir    = \"/tmp/never\"\n  width  = \"wide\"\n}\n",
			links: map[string]func(*testing.T) string{"axon-display-png": pngPlugin},
			want:  `Error: Incorrect attribute value type\s+on \S*axon\.hcl line 15, in display "face".*width  = "wide".*a number is required`,
		},
		{
			name:  "a required attribute left out",
			text:  "display \"face\" {\n  plugin = \"png\"\n}\n",
			links: map[string]func(*testing.T) string{"axon-display-png": pngPlugin},
			want:  `Error: Missing required argument "dir"\s+on \S*axon\.hcl line 12, in display "face"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			links := map[string]string{"axon-provider-openai": filepath.Join(binDir, "axon-provider-openai")}
			for name, target := range tc.links {
				links[name] = target(t)
			}
			for name, target := range links {
				if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			cfg := serveConfig(t, dir, mockProvider+tc.text)
			if tc.lock != "" {
				if err := os.WriteFile(filepath.Join(filepath.Dir(cfg), "axon.lock.hcl"), []byte(tc.lock), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			want := regexp.MustCompile(`(?s)` + tc.want)
			for _, step := range []string{"serve", "check", "serve after check"} {
				var code int
				var out, errOut string
				if step == "check" {
					code, out, errOut = run(t, nil, "check", "--config", cfg)
				} else {
					code, out, errOut = serveBriefly(t, "--config", cfg)
				}
				if code != 1 || strings.Contains(out, "listening") {
					t.Fatalf("%s: exit %d\n%s\n%s", step, code, out, errOut)
				}
				if !want.MatchString(errOut) {
					t.Errorf("%s: stderr does not match %s:\n%s", step, want, errOut)
				}
				if step != "check" && !strings.Contains(errOut, "axon: not serving: 1 plugin block failed the plugin checks (see above)") {
					t.Errorf("%s: no refusal line:\n%s", step, errOut)
				}
			}
		})
	}
}

// TestServeTrustsTheCacheOnlyWhileTheBinaryIsUnchanged: a start with
// unchanged binaries checks the blocks against the Info kept in the state
// directory without starting a plugin (the binary here could not even be
// executed), and a changed binary is hashed again, so a pin it no longer
// matches is found at serve start.
func TestServeTrustsTheCacheOnlyWhileTheBinaryIsUnchanged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "axon-provider-openai")
	text, err := os.ReadFile(filepath.Join(binDir, "axon-provider-openai"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, text, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := serveConfig(t, dir, mockProvider+"provider \"typo\" {\n  plugin   = \"openai\"\n  base_url = \"http://127.0.0.1:1/v1\"\n  model    = \"m\"\n  modle    = \"m\"\n}\n")
	schemaErr := regexp.MustCompile(`(?s)Error: Unsupported argument\s+on \S*axon\.hcl line 16, in provider "typo"`)
	if code, out, errOut := serveBriefly(t, "--config", cfg); code != 1 || !schemaErr.MatchString(errOut) {
		t.Fatalf("first start: exit %d\n%s\n%s", code, out, errOut)
	}
	// Not executable any more, same size and mtime: only the cache can say.
	if err := os.Chmod(bin, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := serveBriefly(t, "--config", cfg)
	if code != 1 || !schemaErr.MatchString(errOut) || strings.Contains(errOut, "did not start") {
		t.Fatalf("cached start: exit %d\n%s\n%s", code, out, errOut)
	}
	// Pinned, binary unchanged: the entry was made unpinned and holds no
	// sha256, so this start hashes the binary and finds the wrong pin.
	lockPath := filepath.Join(filepath.Dir(cfg), "axon.lock.hcl")
	zeros := strings.Repeat("0", 64)
	if err := os.WriteFile(lockPath, []byte("plugin \"axon-provider-openai\" {\n  sha256 = \""+zeros+"\"\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = serveBriefly(t, "--config", cfg)
	if wrongPin := regexp.MustCompile(`(?s)Error: Plugin binary does not match its pin.*pins axon-provider-openai to sha256 ` + zeros); code != 1 || !wrongPin.MatchString(errOut) {
		t.Fatalf("pinned after an unpinned start: exit %d\n%s\n%s", code, out, errOut)
	}
	// Pinned to the binary the cache knows, then rebuilt (here: grown).
	sha, _, err := hashBinary(bin)
	if err != nil {
		t.Fatal(err)
	}
	lock := "plugin \"axon-provider-openai\" {\n  sha256 = \"" + sha + "\"\n}\n"
	if err := os.WriteFile(lockPath, []byte(lock), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, append(text, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = serveBriefly(t, "--config", cfg)
	pinErr := regexp.MustCompile(`(?s)Error: Plugin binary does not match its pin\s+on \S*axon\.hcl line 7, in provider "mock".*pins axon-provider-openai to sha256 ` + sha + `, but the binary in plugin_dir has sha256 [0-9a-f]{64}`)
	if code != 1 || !pinErr.MatchString(errOut) {
		t.Fatalf("rebuilt binary: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestServeSaysOnceThatItsPortIsTaken: a port in use is one line naming
// the address once, and a hint, before any display draws.
func TestServeSaysOnceThatItsPortIsTaken(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	png := filepath.Join(t.TempDir(), "png")
	cfg := serveConfig(t, pluginDirWithPNG(t), mockProvider+pngDisplay(png))
	text, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(text), "127.0.0.1:0", addr, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := serveBriefly(t, "--config", cfg)
	want := fmt.Sprintf("axon: cannot listen on %s: address already in use\n"+
		"hint: is another axon serve running? Stop it, or listen elsewhere: set axon { listen = \"127.0.0.1:%d\" } in %s, or serve another configuration with --config.\n",
		addr, p+1, cfg)
	if code != 1 || errOut != want {
		t.Errorf("exit %d, stdout %q\nstderr:\n%s\nwant:\n%s", code, out, errOut, want)
	}
	if got := frames(t, png); len(got) > 0 {
		t.Errorf("a display drew before serve gave up: %s holds %v", png, got)
	}
}
