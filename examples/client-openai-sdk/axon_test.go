package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binDir holds axon and the provider plugins, built once by TestMain and
// read-only afterwards.
var binDir string

// axonRoot is the axon checkout this example lives in.
const axonRoot = "../.."

// The credential only axon holds: the provider blocks reference it with
// env(), axon's environment has it, and the client never sees it.
const (
	upstreamKeyEnv = "AXON_E2E_UPSTREAM_KEY"
	upstreamKey    = "sk-upstream-only-axon-knows"
)

// Bounds on waiting for the axon process. They fail a hung test; they
// synchronise nothing.
const (
	startTimeout = 30 * time.Second
	stopTimeout  = 20 * time.Second
)

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "axon-client-openai-sdk")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	binDir = dir
	return m.Run()
}

// build compiles axon and the provider plugins with one `go build` in the
// axon module (this example is a module of its own and imports nothing of
// axon), so they share its work, then gives the plugins the names axon runs
// them by. They are static, as `make build` ships them, even when these
// tests run under -race.
func build(dir string) error {
	cmd := exec.Command("go", "build", "-o", dir+string(os.PathSeparator),
		"./host/cmd/axon", "./plugins/provider-openai", "./plugins/provider-anthropic", "./plugins/provider-ollama")
	cmd.Dir = axonRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build in %s: %w\n%s", axonRoot, err, out)
	}
	for _, p := range []string{"provider-openai", "provider-anthropic", "provider-ollama"} {
		if err := os.Rename(filepath.Join(dir, p), filepath.Join(dir, "axon-"+p)); err != nil {
			return err
		}
	}
	return nil
}

// axon is a running `axon serve` subprocess.
type axon struct {
	url  string // the front door, http://127.0.0.1:PORT
	cmd  *exec.Cmd
	out  *output
	done chan error // the result of cmd.Wait
}

// frontDoor is how axon's front door is set up.
type frontDoor struct {
	listen string // "127.0.0.1:0" (a free loopback port) when empty
	token  string // written to the token file when set
}

// startAxon writes an axon.hcl of blocks (providers and chains) with a
// loopback listener on a free port, runs `axon serve` on it with a fresh
// HOME, and returns once axon says it is listening. When the test ends,
// axon gets SIGTERM and must exit 0.
func startAxon(t *testing.T, blocks string) *axon {
	t.Helper()
	return startAxonWith(t, frontDoor{}, blocks)
}

// startAxonWith is startAxon with the front door set up as fd says.
func startAxonWith(t *testing.T, fd frontDoor, blocks string) *axon {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if fd.listen == "" {
		fd.listen = "127.0.0.1:0"
	}
	tokenFile := filepath.Join(dir, "token")
	if fd.token != "" {
		if err := os.WriteFile(tokenFile, []byte(fd.token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	hcl := fmt.Sprintf("axon {\n  listen     = %q\n  state_dir  = %q\n  plugin_dir = %q\n  token_file = %q\n}\n\n%s",
		fd.listen, filepath.Join(dir, "state"), binDir, tokenFile, blocks)
	path := filepath.Join(dir, "axon.hcl")
	if err := os.WriteFile(path, []byte(hcl), 0o600); err != nil {
		t.Fatal(err)
	}

	a := &axon{out: newOutput(), done: make(chan error, 1)}
	a.cmd = exec.Command(filepath.Join(binDir, "axon"), "serve", "--config", path, "--log-level", "debug")
	a.cmd.Env = []string{"HOME=" + home, upstreamKeyEnv + "=" + upstreamKey}
	a.cmd.Stdout, a.cmd.Stderr = a.out.stdout(), a.out.stderr()
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { a.done <- a.cmd.Wait() }()
	t.Cleanup(func() { a.stop(t) })

	select {
	case addr := <-a.out.listening:
		a.url = "http://" + dialable(t, addr)
	case err := <-a.done:
		a.done <- err // for stop
		t.Fatalf("axon exited before listening: %v\n%s", err, a.out)
	case <-time.After(startTimeout):
		t.Fatalf("axon did not say it was listening within %s\n%s", startTimeout, a.out)
	}
	return a
}

// stop sends SIGTERM and expects a graceful exit with status 0.
func (a *axon) stop(t *testing.T) {
	t.Helper()
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("SIGTERM: %v", err)
	}
	select {
	case err := <-a.done:
		if err != nil {
			t.Errorf("axon exited with %v after SIGTERM, want status 0\n%s", err, a.out)
		} else if t.Failed() {
			t.Logf("axon output:\n%s", a.out)
		}
	case <-time.After(stopTimeout):
		_ = a.cmd.Process.Kill()
		<-a.done
		t.Errorf("axon still running %s after SIGTERM; killed\n%s", stopTimeout, a.out)
	}
}

// dialable turns a listening address into one to connect to: a wildcard
// host becomes loopback.
func dialable(t *testing.T, addr string) string {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("axon listens on %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// listeningPrefix starts the line `axon serve` prints on stdout once it
// accepts connections: "axon listening on http://ADDR (config: FILE)".
const listeningPrefix = "axon listening on http://"

// output keeps what axon writes, and announces the address of the first
// listening line on stdout.
type output struct {
	mu        sync.Mutex
	text      bytes.Buffer // both streams, interleaved, for failure logs
	line      []byte       // the unfinished stdout line
	announced bool
	listening chan string
}

func newOutput() *output { return &output{listening: make(chan string, 1)} }

func (o *output) stdout() *streamWriter { return &streamWriter{o: o, watch: true} }
func (o *output) stderr() *streamWriter { return &streamWriter{o: o} }

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.text.String()
}

// streamWriter is one of the process's output streams.
type streamWriter struct {
	o     *output
	watch bool // look for the listening line
}

func (w *streamWriter) Write(p []byte) (int, error) {
	o := w.o
	o.mu.Lock()
	defer o.mu.Unlock()
	o.text.Write(p)
	if !w.watch || o.announced {
		return len(p), nil
	}
	o.line = append(o.line, p...)
	for {
		i := bytes.IndexByte(o.line, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(o.line[:i])
		o.line = o.line[i+1:]
		if rest, ok := strings.CutPrefix(line, listeningPrefix); ok {
			addr, _, _ := strings.Cut(rest, " ")
			o.announced = true
			o.listening <- addr
			return len(p), nil
		}
	}
}
