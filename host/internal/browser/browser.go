// Package browser drives a headless Chromium for tests of axon's web pages:
// it starts one browser per test, loads pages from a server on 127.0.0.1 and
// gives the test short, bounded steps (navigate, wait for text, click, fill a
// form, read the console, take a screenshot) that fail the test with what
// they were waiting for instead of hanging it.
//
// It is imported only from tests (init panics in any other binary).
//
// It must never reach the network beyond the loopback interface: Navigate
// refuses any other host, and Chromium runs with an unreachable proxy for
// every non-loopback address, so a page that fetches the internet fails at
// once instead of depending on the machine's network. And it must never
// leave a Chromium process behind: Close (run by t.Cleanup) ends the browser,
// kills every process that still uses its profile and reports one that
// survives as a test error.
//
// Where no Chromium is found the test fails when it runs as root and is
// skipped otherwise, both saying to run `make test-deps`: CI runs as root and
// installs Chromium there, so a missing browser in CI is a broken setup that
// must not pass as skipped, while a developer without root cannot install
// it and should still get the rest of the suite.
package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func init() {
	if !testing.Testing() {
		panic("host/internal/browser is a test helper: import it only from _test.go files")
	}
}

// EnvChromium names the Chromium binary to use instead of the ones on PATH.
const EnvChromium = "AXON_CHROMIUM"

// candidates are the names Chromium is installed under, in the order tried.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

const (
	// DefaultTimeout bounds every step: long enough for a loaded 2-core CI
	// machine, short enough that a hung page fails well inside go test's own
	// timeout.
	DefaultTimeout = 10 * time.Second
	startTimeout   = 30 * time.Second // Chromium's first start on a cold disk
	closeTimeout   = 5 * time.Second  // graceful close, then it is killed
	width, height  = 1280, 900
	deadProxy      = "127.0.0.1:9" // the discard port: nothing listens, connects are refused
)

// Browser is one headless Chromium with one tab. Its methods fail the test
// (t.Fatal) when a step errs or times out, so call them from the test's own
// goroutine.
type Browser struct {
	t       testing.TB
	timeout time.Duration
	ctx     context.Context // the tab; the browser lives as long as it
	cancel  context.CancelFunc
	dir     string // all Chromium writes; every one of its processes names it
	pid     int    // the main Chromium process
	output  *syncBuffer

	console  *consoleLog
	closeOne sync.Once
}

// Option changes how New starts the browser.
type Option func(*config)

type config struct {
	timeout       time.Duration
	width, height int
}

// Timeout sets how long each step may wait (DefaultTimeout otherwise).
func Timeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WindowSize sets the window, and so the viewport, in CSS pixels (1280x900
// otherwise). A pixel is one device pixel: screenshots have these sizes.
func WindowSize(w, h int) Option { return func(c *config) { c.width, c.height = w, h } }

// New starts a headless Chromium for t and closes it when t ends.
func New(t testing.TB, opts ...Option) *Browser {
	t.Helper()
	cfg := config{timeout: DefaultTimeout, width: width, height: height}
	for _, o := range opts {
		o(&cfg)
	}
	path, err := findChromium()
	if err != nil {
		msg := fmt.Sprintf("browser: %v; run `make test-deps` (as root it installs Debian's chromium) or set $%s", err, EnvChromium)
		if os.Geteuid() == 0 {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir, err := home()
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	b := &Browser{t: t, timeout: cfg.timeout, dir: dir, output: &syncBuffer{}}

	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), allocatorOptions(path, dir, cfg, b.output)...)
	tabCtx, tabCancel := chromedp.NewContext(allocCtx)
	b.ctx = tabCtx
	b.cancel = func() {
		// Graceful first, so Chromium ends its own children; the allocator's
		// cancel then kills whatever is left and waits for it.
		cctx, cancel := context.WithTimeout(tabCtx, closeTimeout)
		_ = chromedp.Cancel(cctx)
		cancel()
		tabCancel()
		allocCancel()
	}
	t.Cleanup(b.Close)

	// The first Run starts Chromium and binds it to tabCtx, so it gets no
	// deadline of its own (one would end the browser); the select bounds it.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(tabCtx) }()
	select {
	case err = <-started:
	case <-time.After(startTimeout):
		err = fmt.Errorf("no DevTools connection within %v", startTimeout)
	}
	if err != nil {
		b.Close()
		t.Fatalf("browser: starting %s: %v\nits output:\n%s", path, err, b.output.tail(4096))
	}
	if p := chromedp.FromContext(tabCtx).Browser.Process(); p != nil {
		b.pid = p.Pid
	}
	b.console = startConsole(tabCtx)
	return b
}

func findChromium() (string, error) {
	if p := os.Getenv(EnvChromium); p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("$%s=%s: %w", EnvChromium, p, err)
		}
		return path, nil
	}
	for _, name := range candidates {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("no Chromium on PATH (looked for %s)", strings.Join(candidates, ", "))
}

// home makes the one directory Chromium may write to: its profile, and, as
// HOME, XDG_CONFIG_HOME, XDG_CACHE_HOME and TMPDIR, where it would otherwise
// leave crash databases, NSS stores and singleton sockets on the machine.
func home() (string, error) {
	dir, err := os.MkdirTemp("", "axon-browser-")
	if err != nil {
		return "", fmt.Errorf("a directory for chromium: %w", err)
	}
	for _, sub := range []string{"profile", "home", "config", "cache", "tmp"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("a directory for chromium: %w", err)
		}
	}
	return dir, nil
}

func allocatorOptions(path, dir string, cfg config, output *syncBuffer) []chromedp.ExecAllocatorOption {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		// Only what it needs: no secrets of the test's environment, no
		// settings of the developer's, so a run is the same everywhere.
		chromedp.NoInheritEnv,
		chromedp.Env(
			"PATH="+os.Getenv("PATH"),
			"HOME="+filepath.Join(dir, "home"),
			"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
			"XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
			"TMPDIR="+filepath.Join(dir, "tmp"),
		),
		chromedp.Flag("disable-crash-reporter", true),
		chromedp.CombinedOutput(output),
		chromedp.Flag("headless", "new"),
		chromedp.WindowSize(cfg.width, cfg.height),
		chromedp.Flag("force-device-scale-factor", "1"),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		// Chromium's sandbox refuses to run as root; elsewhere it stays on.
		// Set either way, or chromedp adds --no-sandbox for a root uid itself.
		chromedp.Flag("no-sandbox", os.Geteuid() == 0),
		// Everything but loopback (which Chromium never proxies) goes to a
		// proxy that refuses connections: no DNS, no internet, fast failure.
		chromedp.ProxyServer(deadProxy),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
	)
	return opts
}

// Context is the tab's chromedp context, for a step this package lacks.
// Bound what you run on it: context.WithTimeout(b.Context(), ...).
func (b *Browser) Context() context.Context { return b.ctx }

// Close ends the browser and makes sure none of its processes outlive it.
// t.Cleanup calls it; calling it again does nothing.
func (b *Browser) Close() {
	b.closeOne.Do(func() {
		b.cancel()
		if b.console != nil {
			b.console.wait()
		}
		// Chromium's children end on their own once the browser process is
		// gone; the ones that do not are killed, and one that outlives even
		// that is a leak the test reports.
		if pids := awaitNone(b.dir, 2*time.Second); len(pids) > 0 {
			b.t.Logf("browser: killing Chromium processes %v that outlived the browser", pids)
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			if left := awaitNone(b.dir, 2*time.Second); len(left) > 0 {
				b.t.Errorf("browser: Chromium processes %v survive SIGKILL", left)
			}
		}
		if err := os.RemoveAll(b.dir); err != nil {
			b.t.Errorf("browser: removing the profile: %v", err)
		}
	})
}

// awaitNone waits up to d for no live process to use the profile dir, and
// returns the ones that still do.
func awaitNone(dir string, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		pids := profileProcesses(dir)
		if len(pids) == 0 || time.Now().After(deadline) {
			return pids
		}
		time.Sleep(10 * time.Millisecond) // a poll of /proc, which has no notification
	}
}

// profileProcesses lists the live processes whose command line names dir.
// Chromium passes --user-data-dir to every child, and its crash handlers
// (which daemonize, so are no children of ours) get their database under
// XDG_CONFIG_HOME; dir is unique to one browser, so this finds all of its
// processes and nobody else's. Children rewrite their title, so the command
// line is searched as text, not split at NULs. A zombie has an empty command
// line: it is gone, only not reaped yet.
func profileProcesses(dir string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && names(cmdline, dir) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// names reports whether cmdline has dir as a whole path or path prefix (so
// /tmp/axon-browser-1 does not match /tmp/axon-browser-12).
func names(cmdline []byte, dir string) bool {
	for rest := cmdline; ; {
		i := bytes.Index(rest, []byte(dir))
		if i < 0 {
			return false
		}
		rest = rest[i+len(dir):]
		if len(rest) == 0 || rest[0] == '/' || rest[0] == 0 || rest[0] == ' ' {
			return true
		}
	}
}

// step runs one action under the step timeout and fails the test with what
// it was doing if it errs.
func (b *Browser) step(what string, a chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if _, err := run(b, a); err != nil {
		b.t.Fatalf("browser: %s: %v", what, b.explain(err))
	}
}

// run is Run under the step timeout.
func run[T any](b *Browser, a chromedp.Action[T]) (T, error) {
	ctx, cancel := context.WithTimeout(b.ctx, b.timeout)
	defer cancel()
	return chromedp.Run(ctx, a)
}

func (b *Browser) explain(err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, chromedp.ErrPollingTimeout) {
		return fmt.Errorf("timed out after %v (%w)", b.timeout, err)
	}
	return err
}

// Navigate loads url, waits for its load event and fails on an HTTP error
// status. url must be on a loopback address.
func (b *Browser) Navigate(rawURL string) {
	b.t.Helper()
	if err := loopbackOnly(rawURL); err != nil {
		b.t.Fatalf("browser: navigate: %v", err)
	}
	res, err := run(b, chromedp.NavigateResponse(rawURL))
	if err != nil {
		b.t.Fatalf("browser: navigate to %s: %v", rawURL, b.explain(err))
	}
	if res != nil && res.Status >= 400 {
		b.t.Fatalf("browser: navigate to %s: HTTP %d %s", rawURL, res.Status, res.StatusText)
	}
}

func loopbackOnly(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	if u.Scheme == "about" || u.Scheme == "data" {
		return nil
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s is not on 127.0.0.1: these tests never leave the machine", rawURL)
}

// syncBuffer keeps Chromium's output for the message of a failed start.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) tail(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.b.Bytes()
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return string(out)
}
