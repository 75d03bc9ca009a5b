package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

// The claims of this file are about a real `axon serve` (and `axon check`)
// with this plugin under the full default sandbox, started from a
// terminal: a pseudo-terminal as the controlling terminal of the axon
// process, as a shell gives it.

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// binaries builds axon, this plugin and the echo provider into a directory
// any user may read, once.
func binaries(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "axon-term-e2e-bin")
		if buildErr != nil {
			return
		}
		buildErr = os.Chmod(buildDir, 0o755)
		for name, pkg := range map[string]string{"axon": "../../host/cmd/axon", "axon-display-term": ".", "axon-provider-echo": "../../examples/provider-echo"} {
			if buildErr != nil {
				return
			}
			cmd := exec.Command("go", "build", "-o", filepath.Join(buildDir, name), pkg)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as make build ships them
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("build %s: %w\n%s", pkg, err, out)
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// exampleBlock is the display "term" block of examples/workstation.hcl,
// so that what the example says is what is run.
func exampleBlock(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../examples/workstation.hcl")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?ms)^display "term" \{.*?^\}`).FindString(string(b))
	if block == "" {
		t.Fatal(`examples/workstation.hcl has no display "term" block`)
	}
	return block
}

// hostUser is who runs axon: the test's own user, or (on a root host)
// nobody, an unprivileged host.
type hostUser struct {
	name string
	cred *syscall.Credential // nil: the test's own
}

func (u hostUser) uid() int {
	if u.cred == nil {
		return os.Geteuid()
	}
	return int(u.cred.Uid)
}

func hostUsers() []hostUser {
	if os.Geteuid() != 0 {
		return []hostUser{{name: "unprivileged"}}
	}
	return []hostUser{{name: "root"}, {name: "nobody", cred: &syscall.Credential{Uid: 65534, Gid: 65534}}}
}

// hostDirs makes the files axon runs with, owned by u: the configuration
// (display block included), HOME, TMPDIR and the state directory.
func hostDirs(t *testing.T, u hostUser, display string) (cfg string, env []string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "axon-term-e2e")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, d := range []string{"", "home", "tmp", "state"} {
		p := filepath.Join(dir, d)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, u.uid(), u.uid()); err != nil && u.cred != nil {
			t.Fatal(err)
		}
	}
	cfg = filepath.Join(dir, "axon.hcl")
	text := fmt.Sprintf(`axon {
  listen     = "127.0.0.1:0"
  state_dir  = %q
  plugin_dir = %q
}
provider "echo" { plugin = "echo" }
chain "default" { providers = [provider.echo] }
%s
`, filepath.Join(dir, "state"), binaries(t), display)
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg, []string{"HOME=" + filepath.Join(dir, "home"), "TMPDIR=" + filepath.Join(dir, "tmp"), "PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
}

// loginTerminal opens a rows×cols terminal and gives it to u as login
// does: owned by u, group tty, mode 0620. It returns the terminal side
// (for the child's stdio) and the transcript of what reaches the terminal.
func loginTerminal(t *testing.T, u hostUser, rows, cols int) (*os.File, *transcript) {
	t.Helper()
	m, tty := openPTY(t, rows, cols)
	if os.Geteuid() == 0 {
		g, err := user.LookupGroup("tty")
		if err != nil {
			t.Skipf("no tty group: %v", err)
		}
		gid, _ := strconv.Atoi(g.Gid)
		if err := os.Chown(tty, u.uid(), gid); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(tty, 0o620); err != nil {
			t.Fatal(err)
		}
	}
	slave, err := os.OpenFile(tty, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return slave, record(m)
}

// axon returns the command for axon args run by u in a session of its own,
// with tty (nil: none) as its controlling terminal and stdio.
func axon(u hostUser, env []string, tty *os.File, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(buildDir, "axon"), args...)
	cmd.Env = env
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Credential: u.cred}
	if tty != nil {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		cmd.SysProcAttr.Setctty, cmd.SysProcAttr.Ctty = true, 0
	}
	return cmd
}

// startServe starts `axon serve` with cfg on tty, as u; it is killed when
// the test ends if the test has not stopped it.
func startServe(t *testing.T, u hostUser, env []string, tty *os.File, cfg string) *exec.Cmd {
	t.Helper()
	cmd := axon(u, env, tty, "--log-level", "debug", "serve", "--config", cfg)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child has its own; the transcript ends when axon and its plugins are gone
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// stop ends axon serve with SIGTERM and waits for its clean exit.
func stop(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("axon serve exited with %v", err)
		}
	case <-time.After(hangGuard):
		t.Fatal("axon serve did not exit after SIGTERM")
	}
}

// TestServeDrawsTheFaceOnItsTerminal: `axon serve` with the example's
// display block, started from a terminal, draws the face on that terminal
// from its sandboxed plugin, pinned to the bottom rows: the scroll region
// ends above it, the host's log (debug level, a request's worth) scrolls
// there and never writes through the face, and at SIGTERM the region is
// reset and the face's rows are given back.
func TestServeDrawsTheFaceOnItsTerminal(t *testing.T) {
	const rows, cols = 40, 100
	block := exampleBlock(t)
	for _, u := range hostUsers() {
		t.Run(u.name, func(t *testing.T) {
			cfg, env := hostDirs(t, u, block)
			tty, tr := loginTerminal(t, u, rows, cols)
			cmd := startServe(t, u, env, tty, cfg)

			region := fmt.Sprintf("\x1b[1;%dr", rows-24)
			listening := regexp.MustCompile(`axon listening on (http://\S+)`)
			out := tr.waitFor(t, "the face and the listening address", func(s string) bool {
				return strings.Contains(s, region) && listening.MatchString(s)
			})
			resp, err := http.Post(listening.FindStringSubmatch(out)[1]+"/v1/chat/completions", "application/json",
				strings.NewReader(`{"model":"default","messages":[{"role":"user","content":"hello from the terminal test"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("chat completion: %s", resp.Status)
			}
			d := &termDisplay{cfg: config{Width: 64, Height: 40}}
			status := map[string]string{"chain": "default", "provider": "echo"}
			happy := d.frame(sdk.Frame{Expression: sdk.ExprHappy, Status: status}).rows(true)
			idle := d.frame(sdk.Frame{Expression: sdk.ExprIdle, Status: status}).rows(true)
			grin := "" // a row of the happy face that the idle face lacks
			for _, r := range happy {
				if r != "" && !slices.Contains(idle, r) {
					grin = r
					break
				}
			}
			tr.waitFor(t, "the happy face", func(s string) bool { return grin != "" && strings.Contains(s, grin) })
			stop(t, cmd)

			s := newScreen(rows, cols)
			var held []string // the screen when the region is reset: the last face
			s.onRegion = func(s *screen) {
				held = held[:0]
				for i := range rows {
					held = append(held, s.line(i))
				}
			}
			all := tr.all(t)
			s.write(all)
			defer func() {
				if t.Failed() {
					t.Logf("the terminal received:\n%q", all)
				}
			}()
			if diff := cmp.Diff([]string{fmt.Sprintf("1;%d", rows-24), ""}, s.regions); diff != "" {
				t.Fatalf("scroll regions (-want +got):\n%s", diff)
			}
			if len(s.intrusions) > 0 {
				t.Errorf("log text ran through the face: %q", strings.Join(s.intrusions, ""))
			}
			face := held[rows-len(happy):]
			if !cmp.Equal(face, happy) && !cmp.Equal(face, idle) {
				t.Errorf("the bottom rows before the region was reset are not the happy or idle face (-happy +got):\n%s", cmp.Diff(happy, face))
			}
			logged := 0
			for _, l := range held[:rows-len(happy)] {
				if strings.Contains(l, "[DEBUG]") || strings.Contains(l, "[INFO]") {
					logged++
				}
			}
			if logged == 0 {
				t.Errorf("no log line in the rows above the face: %q", held[:rows-len(happy)])
			}
		})
	}
}

// TestCheckWithoutATerminalSaysWhatToDo: where axon has no terminal (as
// under systemd) the example's grant cannot be met, and axon check says so
// and what to do instead.
func TestCheckWithoutATerminalSaysWhatToDo(t *testing.T) {
	u := hostUsers()[0]
	cfg, env := hostDirs(t, u, exampleBlock(t))
	out, err := axon(u, env, nil, "check", "--config", cfg).CombinedOutput()
	if err == nil {
		t.Fatalf("axon check passed:\n%s", out)
	}
	for _, w := range []string{`display "term"`, "grant /dev/tty: axon has no terminal to show the plugin", "under systemd it never is", "the term display's tty) and grant that"} {
		if !strings.Contains(string(out), w) {
			t.Errorf("axon check says\n%s\nwant it to say %q", out, w)
		}
	}
}
