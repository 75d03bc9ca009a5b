package browser

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const indexHTML = `<!doctype html>
<html><head><title>harness</title><style>body { margin: 0; font: 16px sans-serif }</style></head>
<body>
<h1 id="title">Harness page</h1>
<button id="go">Go</button>
<p id="status">idle</p>
<input id="name" placeholder="name">
<select id="colour"><option value="red">Red</option><option value="blue">Blue</option></select>
<input type="checkbox" id="agree">
<p id="echo"></p>
<a id="docs" href="/next" data-kind="help">next page</a>
<ul id="events"></ul>
<img id="logo" src="/logo.png" alt="logo">
<div id="box" style="width: 200px; height: 100px; background: rgb(0, 0, 255)"></div>
<script src="/app.js"></script>
</body></html>`

const appJS = `
const $ = (id) => document.getElementById(id);
$("go").addEventListener("click", () => { $("status").textContent = "clicked"; });
const echo = () => { $("echo").textContent = "hello " + $("name").value + " in " + $("colour").value + ($("agree").checked ? ", agreed" : ""); };
$("name").addEventListener("input", echo);
$("colour").addEventListener("change", echo);
$("agree").addEventListener("change", echo);
const es = new EventSource("/events");
es.onmessage = (ev) => {
	const li = document.createElement("li");
	li.textContent = ev.data;
	$("events").appendChild(li);
};
`

const throwsHTML = `<!doctype html><html><body><p id="ok">loaded</p>
<img src="/missing.png">
<script>console.error("bad thing"); throw new Error("boom");</script>
</body></html>`

// nextHTML fills in its text a moment after it loads, so a wait for it
// begins on the page before and must carry over the navigation.
const nextHTML = `<!doctype html><html><body><p id="where"></p>
<script>setTimeout(() => { document.getElementById("where").textContent = "on the next page"; }, 200);</script>
</body></html>`

const tallHTML = `<!doctype html><html><body style="margin: 0">
<div style="height: 1600px; background: rgb(255, 0, 0)">tall</div></body></html>`

// site is the page the harness drives: a script file, a live SSE stream fed
// by the test through push, and an image.
type site struct {
	*httptest.Server
	push chan string
	logo []byte
}

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{push: make(chan string), logo: testPNG(t, 64, 32)}
	mux := http.NewServeMux()
	page := func(body, ctype string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", ctype)
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("GET /{$}", page(indexHTML, "text/html; charset=utf-8"))
	mux.HandleFunc("GET /app.js", page(appJS, "text/javascript"))
	mux.HandleFunc("GET /throws", page(throwsHTML, "text/html; charset=utf-8"))
	mux.HandleFunc("GET /next", page(nextHTML, "text/html; charset=utf-8"))
	mux.HandleFunc("GET /tall", page(tallHTML, "text/html; charset=utf-8"))
	mux.HandleFunc("GET /logo.png", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(s.logo)
	})
	mux.HandleFunc("GET /events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: connected\n\n")
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case msg := <-s.push:
				fmt.Fprintf(w, "data: %s\n\n", msg)
				w.(http.Flusher).Flush()
			}
		}
	})
	s.Server = httptest.NewServer(mux) // listens on 127.0.0.1
	// The browser holds the event stream open; Close would wait for it.
	t.Cleanup(func() { s.CloseClientConnections(); s.Close() })
	return s
}

func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(x * 4), G: 128, B: uint8(y * 8), A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDrivesAPage(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := New(t)
	b.Navigate(s.URL)

	b.WaitVisible("#go")
	if got := b.Text("#title"); got != "Harness page" {
		t.Errorf("title text = %q", got)
	}
	b.Click("#go")
	b.WaitText("#status", "clicked")

	b.SetValue("#name", "Ada")
	b.WaitText("#echo", "hello Ada in red")
	b.Select("#colour", "blue")
	b.WaitText("#echo", "hello Ada in blue")
	b.SetChecked("#agree", true)
	if got := b.WaitText("#echo", "agreed"); got != "hello Ada in blue, agreed" {
		t.Errorf("echo = %q", got)
	}
	b.SetChecked("#agree", true) // already checked: no click, no change
	if !Eval[bool](b, `document.getElementById("agree").checked`) {
		t.Error("a second SetChecked(true) unchecked the box")
	}

	if v, ok := b.Attribute("#docs", "data-kind"); v != "help" || !ok {
		t.Errorf("data-kind = %q, %v", v, ok)
	}
	if _, ok := b.Attribute("#docs", "target"); ok {
		t.Error("an absent attribute is reported present")
	}
	if n := Eval[int](b, `Promise.resolve(document.querySelectorAll("option").length)`); n != 2 {
		t.Errorf("options = %d, want 2", n)
	}
	if errs := b.JSErrors(); len(errs) != 0 {
		t.Errorf("a page without errors logged %v", errs)
	}

	b.Click("#docs") // a link: the wait below starts before the next page
	b.WaitText("#where", "on the next page")
}

func TestWaitsForLiveText(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := New(t)
	b.Navigate(s.URL)
	b.WaitText("#events", "connected")
	for i := 1; i <= 3; i++ {
		s.push <- "tick " + strconv.Itoa(i) // blocks until the stream is open
		b.WaitText("#events li:last-child", "tick "+strconv.Itoa(i))
	}
	if got := b.Text("#events"); got != "connected\ntick 1\ntick 2\ntick 3" {
		t.Errorf("events = %q", got)
	}
}

func TestCatchesConsoleErrors(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := New(t)
	b.Navigate(s.URL + "/throws")
	b.WaitText("#ok", "loaded")

	var sawError, sawException, sawMissing bool
	for _, m := range b.JSErrors() {
		sawError = sawError || m.Type == "error" && m.Text == "bad thing"
		sawException = sawException || m.Type == "exception" && strings.Contains(m.Text, "boom")
		sawMissing = sawMissing || strings.Contains(m.Text, "404") && strings.HasSuffix(m.URL, "/missing.png")
	}
	if !sawError || !sawException || !sawMissing {
		t.Errorf("seen: console.error %v, uncaught exception %v, a 404 image %v; the console had %v", sawError, sawException, sawMissing, b.Console())
	}
}

// A step that cannot succeed fails the test, within the step timeout, with
// what it waited for and what it saw.
func TestTimeoutSaysWhatItWaitedFor(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := New(t)
	b.Navigate(s.URL)

	short := &Browser{t: &fatalTB{TB: t}, timeout: 300 * time.Millisecond, ctx: b.ctx, console: b.console}
	cases := []struct {
		name string
		step func()
		want []string
	}{
		{"text", func() { short.WaitText("#status", "never") }, []string{`#status to contain "never"`, "timed out after 300ms", `"idle"`}},
		{"visible", func() { short.WaitVisible("#missing") }, []string{"#missing to be visible", "timed out"}},
		{"click", func() { short.Click("#missing") }, []string{"clicking #missing", "timed out"}},
		{"option", func() { short.Select("#colour", "green") }, []string{`no option with that value (has "red", "blue")`}},
		{"bad selector", func() { short.WaitText("#[", "x") }, []string{"SyntaxError", "is not a valid selector"}},
	}
	for _, c := range cases {
		// Not parallel: they share one tab.
		msg := failure(short, c.step)
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: the failure %q lacks %q", c.name, msg, w)
			}
		}
	}
}

// fatalTB records the test failure that a step reports.
type fatalTB struct {
	testing.TB
	mu  sync.Mutex
	msg string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.msg = fmt.Sprintf(format, args...)
	f.mu.Unlock()
	runtime.Goexit()
}

// failure runs step as a test body would, and returns its Fatalf message.
func failure(b *Browser, step func()) string {
	f := b.t.(*fatalTB)
	f.mu.Lock()
	f.msg = ""
	f.mu.Unlock()
	done := make(chan struct{})
	go func() { defer close(done); step() }()
	<-done
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.msg
}

func TestScreenshots(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := New(t)
	dir := t.TempDir()

	b.Navigate(s.URL)
	b.ScreenshotElement("#box", filepath.Join(dir, "box.png"))
	box := decodePNG(t, filepath.Join(dir, "box.png"))
	if got := box.Bounds().Size(); got != image.Pt(200, 100) {
		t.Errorf("the 200x100 box's screenshot is %v", got)
	}
	if r, g, bl, _ := box.At(100, 50).RGBA(); r>>8 != 0 || g>>8 != 0 || bl>>8 != 255 {
		t.Errorf("the blue box's screenshot is %d,%d,%d at its centre", r>>8, g>>8, bl>>8)
	}

	b.Navigate(s.URL + "/tall")
	b.Screenshot(filepath.Join(dir, "tall", "page.png"))
	tall := decodePNG(t, filepath.Join(dir, "tall", "page.png"))
	if got := tall.Bounds().Size(); got != image.Pt(1280, 1600) {
		t.Errorf("the full-page screenshot of a 1600px page is %v, want 1280x1600", got)
	}
	if r, g, bl, _ := tall.At(640, 1500).RGBA(); r>>8 != 255 || g>>8 != 0 || bl>>8 != 0 {
		t.Errorf("below the viewport the red page is %d,%d,%d", r>>8, g>>8, bl>>8)
	}
}

func decodePNG(t *testing.T, path string) image.Image {
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

func TestReadsImages(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := New(t)
	b.Navigate(s.URL)
	if w, h := b.ImageSize("#logo"); w != 64 || h != 32 {
		t.Errorf("natural size = %dx%d, want 64x32", w, h)
	}
	if got := b.ImageBytes("#logo"); !bytes.Equal(got, s.logo) {
		t.Errorf("fetched %d bytes, not the %d served", len(got), len(s.logo))
	}
}

// A page's request beyond loopback fails at once (the dead proxy), without
// DNS or a connect timeout, on any machine.
func TestNoNetworkBeyondLoopback(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := New(t)
	b.Navigate(s.URL)
	got := Eval[string](b, `fetch("http://192.0.2.1/").then(() => "reached", (e) => "refused: " + e.message)`)
	if !strings.HasPrefix(got, "refused") {
		t.Errorf("a fetch of 192.0.2.1 gave %q", got)
	}
	if ok := Eval[string](b, `fetch("/logo.png").then(r => String(r.status))`); ok != "200" {
		t.Errorf("a fetch of the loopback site gave %s", ok)
	}
}

func TestIsError(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		m    ConsoleMessage
		want bool
	}{
		{ConsoleMessage{Type: "exception", Text: "Uncaught Error: boom"}, true},
		{ConsoleMessage{Type: "error", Text: "bad thing"}, true},
		{ConsoleMessage{Type: "error", Source: "network", URL: "http://127.0.0.1:1/app.js"}, true},
		{ConsoleMessage{Type: "error", Source: "network", URL: "http://127.0.0.1:1/favicon.ico"}, false},
		{ConsoleMessage{Type: "warning", Text: "deprecated"}, false},
		{ConsoleMessage{Type: "log", Text: "hello"}, false},
	} {
		if got := c.m.IsError(); got != c.want {
			t.Errorf("%v.IsError() = %v, want %v", c.m, got, c.want)
		}
	}
}

func TestLoopbackOnly(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{"http://127.0.0.1:8080/", true},
		{"http://127.0.0.2/x", true},
		{"http://[::1]:9/", true},
		{"http://localhost:3000/", true},
		{"about:blank", true},
		{"http://example.com/", false},
		{"https://10.0.0.1/", false},
		{"http://127.0.0.1.example.com/", false},
	} {
		if err := loopbackOnly(c.url); (err == nil) != c.ok {
			t.Errorf("loopbackOnly(%q) = %v, want ok=%v", c.url, err, c.ok)
		}
	}
}

// After Close no Chromium process is left: neither the main process, nor a
// child still using its profile, nor any chromium child of this test binary.
func TestLeavesNoProcess(t *testing.T) {
	s := newSite(t) // not parallel: it counts this binary's children
	b := New(t)
	b.Navigate(s.URL)
	b.WaitText("#events", "connected") // a renderer and a live connection
	pids := profileProcesses(b.dir)
	if len(pids) < 2 {
		t.Fatalf("found %d Chromium processes by profile, want the browser and its children", len(pids))
	}
	rss, pss := memory(pids)
	t.Logf("chromium: %d processes, RSS %d MiB summed, PSS %d MiB", len(pids), rss>>20, pss>>20)

	b.Close()
	for _, pid := range append(pids, b.pid) {
		if alive(pid) {
			t.Errorf("Chromium process %d is alive after Close", pid)
		}
	}
	if left := profileProcesses(b.dir); len(left) > 0 {
		t.Errorf("processes %v still use the profile", left)
	}
	for _, pid := range chromiumChildren() {
		t.Errorf("process %d, a Chromium child of the test binary, is alive after Close", pid)
	}
	if _, err := os.Stat(b.dir); !os.IsNotExist(err) {
		t.Errorf("the profile %s is still there: %v", b.dir, err)
	}
}

// alive reports whether pid runs and is not a zombie awaiting its reaper.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, after, _ := bytes.Cut(stat, []byte(") "))
	return len(after) > 0 && after[0] != 'Z'
}

func chromiumChildren() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		name, rest, _ := bytes.Cut(stat, []byte(") "))
		f := strings.Fields(string(rest))
		if len(f) < 2 || f[0] == "Z" || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		if bytes.Contains(name, []byte("chrom")) {
			pid, _ := strconv.Atoi(e.Name())
			pids = append(pids, pid)
		}
	}
	return pids
}

// memory sums VmRSS (shared pages counted in each process) and Pss (shared
// pages split among their users) over pids, in bytes.
func memory(pids []int) (rss, pss int64) {
	field := func(path, name string) int64 {
		raw, err := os.ReadFile(path)
		if err != nil {
			return 0
		}
		for line := range strings.Lines(string(raw)) {
			if v, ok := strings.CutPrefix(line, name+":"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				return kb << 10
			}
		}
		return 0
	}
	for _, pid := range pids {
		p := "/proc/" + strconv.Itoa(pid)
		rss += field(p+"/status", "VmRSS")
		pss += field(p+"/smaps_rollup", "Pss")
	}
	return rss, pss
}
