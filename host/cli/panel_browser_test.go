package cli

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axonhq/axon/host/internal/browser"
	"github.com/axonhq/axon/host/internal/testbin"
)

// The panel, claimed of a real `axon serve` (real provider and png display
// plugins, a fake upstream) in a real headless Chromium. With
// AXON_SCREENSHOTS=1 (make screenshots) the test also writes the README's
// screenshots to docs/panel/.

var (
	panelBinOnce sync.Once
	panelBinErr  error
)

// panelKey is the credential the test's environment holds: the panel may
// name its reference, never show it.
const panelKey = "sk-panel-canary-7f3c9a1e"

// panelConfig is the file the panel edits; its comments must outlive every
// edit.
const panelConfig = `# The panel test's configuration. This comment must survive a knob edit.
axon {
  listen     = "127.0.0.1:0"
  state_dir  = %q
  plugin_dir = %q
}

# a answers first, but its upstream holds each request until the test
# lets it go.
provider "a" {
  plugin     = "openai"
  base_url   = %q
  model      = "m"
  credential = env("AXON_PANEL_KEY") # resolved by the host, never shown
}

provider "b" {
  plugin   = "openai"
  base_url = %q
  model    = "m"
  tier     = "local"
  good_at  = ["chat"]
}

display "face" {
  plugin   = "png"
  dir      = %q
  keep_all = true
  grant { read_write = [%q] }
}

chain "default" {
  providers = [provider.a, provider.b] # the order under test
}
`

func TestPanelInABrowser(t *testing.T) {
	panelBinOnce.Do(func() {
		panelBinErr = testbin.BuildInto(binDir,
			testbin.Target{Name: "axon", Pkg: "../cmd/axon"},
			testbin.Target{Name: "axon-display-png", Pkg: "../../plugins/display-png"},
		)
	})
	if panelBinErr != nil {
		t.Fatal(panelBinErr)
	}
	b := browser.New(t)
	held := newGatedUpstream(t, "a")
	fast := openaiUpstream(t, 200, "from b")
	dir := t.TempDir()
	faceDir := filepath.Join(dir, "face")
	cfg := filepath.Join(dir, "axon.hcl")
	original := fmt.Sprintf(panelConfig, filepath.Join(dir, "state"), binDir, held.URL+"/v1", fast.URL+"/v1", faceDir, faceDir)
	if err := os.WriteFile(cfg, []byte(original), 0o600); err != nil {
		t.Fatal(err)
	}
	base, _ := startServeEnv(t, []string{"AXON_PANEL_KEY=" + panelKey}, cfg)
	shots := screenshots(t)

	b.Navigate(base + "/")
	b.WaitText("#live-status", "live")

	// Roster: every provider and the chain, the credential as its
	// reference only; the key is nowhere in the page.
	b.Click("#tab-roster")
	b.WaitText(`tr[data-provider="a"]`, `env:AXON_PANEL_KEY`)
	b.WaitText(`tr[data-provider="b"]`, "local")
	b.WaitText(`tr[data-provider="b"]`, "chat")
	b.WaitText(`tr[data-chain="default"]`, "a")
	b.WaitText(`tr[data-display="face"]`, "png")
	shots.take(b, "roster")
	if html := browser.Eval[string](b, "document.documentElement.outerHTML"); strings.Contains(html, panelKey) {
		t.Error("the roster page holds the credential")
	}

	// Live: a turn held at the upstream shows the thinking face, the same
	// picture the png display wrote; let go, the turn appears with its
	// trail and the face turns happy.
	b.Click("#tab-live")
	answered := make(chan string, 1)
	go func() { answered <- postChat(base) }()
	select {
	case <-held.arrival:
	case <-time.After(frontDoorHangGuard):
		t.Fatal("the request never reached the upstream")
	}
	thinking := `img.face[data-display="face"][alt="face: thinking"]`
	b.WaitVisible(thinking)
	thinkingPNG := b.ImageBytes(thinking)
	samePicture(t, thinkingPNG, waitFrame(t, faceDir, "thinking"))
	shots.take(b, "live-thinking")

	held.release()
	if got := <-answered; !strings.HasPrefix(got, "200 a ") {
		t.Fatalf("the held request: %s", got)
	}
	turn := `.turn:has(.turn-provider)`
	b.WaitText(turn+" .turn-provider", "a")
	b.WaitText(turn+" .turn-outcome", "ok")
	b.WaitText(turn+" .turn-trail", "a#1 ok")
	b.WaitText(turn+" tr.attempt", "a#1")
	happy := `img.face[data-display="face"][alt="face: happy"]`
	b.WaitVisible(happy)
	happyPNG := b.ImageBytes(happy)
	samePicture(t, happyPNG, waitFrame(t, faceDir, "happy"))
	if bytes.Equal(happyPNG, thinkingPNG) {
		t.Error("the face image did not change from thinking to happy")
	}
	shots.take(b, "live")

	// Try it: a prompt through the chain, the answer streamed in with its
	// trail.
	b.Click("#tab-try")
	b.WaitText("#try-chain", "default/b (pinned)")
	b.Select("#try-chain", "default/b")
	b.SetValue("#try-prompt", "hello there")
	b.Click("#try-send")
	b.WaitText("#try-answer", "from b")
	b.WaitText("#try-trail", "b#1 ok")
	shots.take(b, "try")

	// Stats: the plots are drawn from the usage store.
	b.Click("#tab-stats")
	b.WaitVisible(`figure[data-chart="requests"] svg`)
	b.WaitVisible(`figure[data-chart="latency"] svg`)
	// a answered one whole (non-streamed) turn: it has no first-token time,
	// and the plot says so instead of drawing a zero.
	b.WaitText(`figure[data-chart="latency-by"]`, "none")
	shots.take(b, "stats")

	b.NoJSErrors()

	// Knobs: an invalid value shows the loader's diagnostic beside its
	// field and writes nothing.
	b.Click("#tab-knobs")
	b.WaitVisible(`[data-knob="provider.a.enabled"]`)
	b.SetValue(`[data-knob="provider.b.budget"]`, "0")
	b.Click("#knobs-save")
	b.WaitText(`.diag[data-for="provider.b.budget"]`, `Invalid value for "usd_per_month"`)
	shots.take(b, "knobs")
	if text, _ := os.ReadFile(cfg); string(text) != original {
		t.Fatalf("a refused edit changed the file:\n%s", text)
	}
	if backups := backupsOf(t, cfg); len(backups) != 0 {
		t.Fatalf("a refused edit left backups %v", backups)
	}

	// A valid edit: a off. The file keeps its comments, a backup holds
	// what it was, the daemon reloads and the next request goes to b.
	b.SetValue(`[data-knob="provider.b.budget"]`, "")
	b.Select(`[data-knob="provider.a.enabled"]`, "false")
	b.Click("#knobs-save")
	b.WaitText("#knobs-result", "reloaded")
	edited, _ := os.ReadFile(cfg)
	for _, keep := range []string{
		"# The panel test's configuration. This comment must survive a knob edit.",
		"# a answers first, but its upstream holds each request until the test",
		`credential = env("AXON_PANEL_KEY") # resolved by the host, never shown`,
		"providers = [provider.a, provider.b] # the order under test",
	} {
		if !strings.Contains(string(edited), keep) {
			t.Errorf("the edit lost %q:\n%s", keep, edited)
		}
	}
	if a := blockOf(string(edited), `provider "a"`); !strings.Contains(a, "enabled") || !strings.Contains(a, "false") {
		t.Errorf("provider a is not disabled in the file:\n%s", a)
	}
	backups := backupsOf(t, cfg)
	if len(backups) != 1 {
		t.Fatalf("backups %v, want one", backups)
	}
	if old, _ := os.ReadFile(backups[0]); string(old) != original {
		t.Errorf("the backup %s is not the file as it was:\n%s", backups[0], old)
	}
	if p := askServe(t, base); p != "b" {
		t.Errorf("after the edit the next request went to %s, want b", p)
	}

	// A page on another origin can neither read the panel nor drive it: its
	// fetch of the roster is blocked, and its form post of an edit (the
	// classic text/plain JSON forgery) is refused with nothing written.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, crossOriginPage, base, base)
	}))
	t.Cleanup(evil.Close)
	b.Navigate(evil.URL + "/")
	b.WaitText("#read", "blocked")
	b.Click("#forge")
	b.WaitText("body", "cross-origin request refused")
	if text, _ := os.ReadFile(cfg); !bytes.Equal(text, edited) {
		t.Errorf("a cross-origin post changed the file:\n%s", text)
	}
	if n := len(backupsOf(t, cfg)); n != 1 {
		t.Errorf("a cross-origin post left %d backups, want the one from before", n)
	}

	// The page logged nothing but the refusals above.
	for _, m := range b.JSErrors() {
		if s := m.String(); !strings.Contains(s, "status of 422") && !strings.Contains(s, "status of 403") &&
			!strings.Contains(s, "blocked by CORS policy") && !strings.Contains(s, "net::ERR_FAILED") {
			t.Errorf("the page logged %s", s)
		}
	}
}

// crossOriginPage is another origin's page aimed at the panel at %s.
const crossOriginPage = `<!doctype html><title>elsewhere</title>
<p id="read">reading</p>
<form id="f" method="post" action="%s/panel/api/config" enctype="text/plain">
<input type="hidden" name='{"edits":[{"block":"provider","name":"b","field":"enabled","value":false,"x":"' value='"}]}'>
<button id="forge" type="submit">forge</button>
</form>
<script>
fetch(%q + "/panel/api/roster").then((r) => r.text()).then(
  (t) => { document.getElementById("read").textContent = "read: " + t; },
  (e) => { document.getElementById("read").textContent = "blocked: " + e; });
</script>`

// postChat sends one chat completion and returns "STATUS PROVIDER BODY";
// it may run off the test's goroutine.
func postChat(base string) string {
	resp, err := (&http.Client{Timeout: frontDoorHangGuard}).Post(base+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"default","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s %s", resp.StatusCode, resp.Header.Get("X-Axon-Provider"), body)
}

// waitFrame returns the png display's latest frame of expression in dir
// (keep_all names them frame-NNNNNN-EXPRESSION.png), waiting for it.
func waitFrame(t *testing.T, dir, expression string) []byte {
	t.Helper()
	deadline := time.Now().Add(frontDoorHangGuard)
	for {
		frames, _ := filepath.Glob(filepath.Join(dir, "frame-*-"+expression+".png"))
		if len(frames) > 0 {
			slices.Sort(frames)
			b, err := os.ReadFile(frames[len(frames)-1])
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("the png display wrote no %s frame in %s", expression, dir)
		}
		// The display plugin writes its frame on its own time; no event
		// says it has.
		time.Sleep(20 * time.Millisecond)
	}
}

// samePicture fails unless two PNGs decode to the same pixels.
func samePicture(t *testing.T, panel, display []byte) {
	t.Helper()
	decode := func(what string, b []byte) image.Image {
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return img
	}
	p, d := decode("the panel's face", panel), decode("the png display's frame", display)
	if p.Bounds() != d.Bounds() {
		t.Fatalf("the panel's face is %v, the display's %v", p.Bounds(), d.Bounds())
	}
	for y := p.Bounds().Min.Y; y < p.Bounds().Max.Y; y++ {
		for x := p.Bounds().Min.X; x < p.Bounds().Max.X; x++ {
			r1, g1, b1, a1 := p.At(x, y).RGBA()
			r2, g2, b2, a2 := d.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				t.Fatalf("the panel's face differs from the display's frame at (%d,%d)", x, y)
			}
		}
	}
}

// backupsOf lists the timestamped backups written beside cfg.
func backupsOf(t *testing.T, cfg string) []string {
	t.Helper()
	all, err := filepath.Glob(cfg + ".*")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range all {
		if strings.HasSuffix(p, ".bak") {
			out = append(out, p)
		}
	}
	return out
}

// blockOf returns the block of text that starts with header, to its
// closing brace at the start of a line.
func blockOf(text, header string) string {
	i := strings.Index(text, header)
	if i < 0 {
		return ""
	}
	rest := text[i:]
	if j := strings.Index(rest, "\n}"); j >= 0 {
		return rest[:j+2]
	}
	return rest
}

// shooter writes the README's screenshots when AXON_SCREENSHOTS=1.
type shooter struct{ dir string }

func screenshots(t *testing.T) shooter {
	if os.Getenv("AXON_SCREENSHOTS") != "1" {
		return shooter{}
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "docs", "panel"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return shooter{dir: dir}
}

func (s shooter) take(b *browser.Browser, name string) {
	if s.dir != "" {
		b.Screenshot(filepath.Join(s.dir, name+".png"))
	}
}
