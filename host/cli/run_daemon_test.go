package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/axonhq/axon/host/internal/testbin"
)

var (
	clockBinOnce sync.Once
	clockBinErr  error
)

// toolUpstream is a scripted OpenAI chat-completions model: with no tool
// result in the conversation it asks for the clock's now (call_1), after
// one it answers "It is noon.". A prompt with "hold" in it is held until
// the caller goes away (a cancelled model call), telling held; down makes
// it answer 503.
type toolUpstream struct {
	*httptest.Server
	down atomic.Bool
	held chan struct{}
}

func newToolUpstream(t *testing.T) *toolUpstream {
	u := &toolUpstream{held: make(chan struct{}, 16)}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if u.down.Load() {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"message":"overloaded","type":"server_error"}}`)
			return
		}
		if strings.Contains(string(body), "hold") {
			u.held <- struct{}{}
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(v string) {
			io.WriteString(w, "data: "+v+"\n\n")
			w.(http.Flusher).Flush()
		}
		if !strings.Contains(string(body), `"role":"tool"`) {
			chunk(`{"id":"c","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"now","arguments":"{}"}}]}}]}`)
			chunk(`{"id":"c","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
		} else {
			for _, word := range []string{"It is", " noon."} {
				chunk(fmt.Sprintf(`{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":%q}}]}`, word))
			}
			chunk(`{"id":"c","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(u.Close)
	return u
}

// daemonRunConfig writes an axon.hcl whose daemon listens on a unix socket
// (and, tokened, on every interface), with the clock tool and a chain of
// the upstream at url.
func daemonRunConfig(t *testing.T, dir, listen, tokenFile, url string) string {
	t.Helper()
	text := fmt.Sprintf("axon {\n  listen      = %q\n  unix_socket = %q\n  state_dir   = %q\n  plugin_dir  = %q\n  token_file  = %q\n}\n",
		listen, filepath.Join(dir, "axon.sock"), filepath.Join(dir, "state"), binDir, tokenFile) +
		chainConfig(url) + "tool \"clock\" { plugin = \"clock\" }\n"
	p := filepath.Join(dir, "axon.hcl")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func buildRunDaemon(t *testing.T) {
	t.Helper()
	buildAxon(t)
	clockBinOnce.Do(func() {
		clockBinErr = testbin.BuildInto(binDir, testbin.Target{Name: "axon-tool-clock", Pkg: "../../plugins/tool-clock"})
	})
	if clockBinErr != nil {
		t.Fatal(clockBinErr)
	}
}

// TestRunAgainstADaemon: with axon serve running (a real process, tokened),
// axon run is its client: the run goes on in the daemon and is shown as
// in-process (answer on stdout, tool lines and the end on stderr, with a
// line saying where it runs); a resend with the same key shows the run;
// --cancel and Ctrl-C end a run in flight cancelled; --resume continues a
// paused one; a wrong token is an error with the daemon's reason, never a
// run in this process.
func TestRunAgainstADaemon(t *testing.T) {
	buildRunDaemon(t)
	up := newToolUpstream(t)
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("right-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := daemonRunConfig(t, dir, "0.0.0.0:0", token, up.URL)
	startServe(t, cfg)
	sock := filepath.Join(dir, "axon.sock")
	root := t.TempDir()
	axonCtx := func(ctx context.Context, args ...string) (int, string, string) {
		t.Helper()
		return runEnv(ctx, t, nil, append([]string{"--config", cfg, "run", "--project-root", root}, args...)...)
	}
	axon := func(args ...string) (int, string, string) {
		t.Helper()
		return axonCtx(context.Background(), args...)
	}
	contains := func(what, text string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s does not say %q:\n%s", what, w, text)
			}
		}
	}

	t.Run("send and follow", func(t *testing.T) {
		code, out, errOut := axon("--session", "s1", "--tools", "clock", "--idempotency-key", "k1", "what time is it?")
		if code != 0 || strings.TrimSpace(out) != "It is noon." {
			t.Fatalf("exit %d, stdout %q, want 0 and the answer; stderr:\n%s", code, out, errOut)
		}
		contains("stderr", errOut, "runs in axon serve at "+sock, "[clock now → call_1]\n", "[now call_1: ok] ", "[run finished: completed]\n")
		if strings.Index(errOut, "runs in axon serve") > strings.Index(errOut, "[clock now") {
			t.Errorf("the progress line comes after the run's events:\n%s", errOut)
		}
		code, out, errOut = axon("--session", "s1", "--tools", "clock", "--idempotency-key", "k1", "what time is it?")
		if code != 0 || strings.TrimSpace(out) != "It is noon." {
			t.Fatalf("resend: exit %d, stdout %q; stderr:\n%s", code, out, errOut)
		}
		contains("resend's stderr", errOut, "was started with this idempotency key: showing it]", "[run finished: completed]\n")
	})

	t.Run("cancel in flight", func(t *testing.T) {
		type result struct {
			code        int
			out, errOut string
		}
		done := make(chan result, 1)
		go func() {
			code, out, errOut := axon("--session", "s2", "hold on")
			done <- result{code, out, errOut}
		}()
		waitHeld(t, up)
		code, _, errOut := axon("--session", "s2", "--cancel")
		if code != 0 {
			t.Fatalf("--cancel: exit %d; stderr:\n%s", code, errOut)
		}
		contains("--cancel's stderr", errOut, "[cancelling run ", "[run finished: cancelled]\n")
		r := <-done
		if r.code != 1 {
			t.Errorf("the cancelled run's axon run: exit %d, want 1; stderr:\n%s", r.code, r.errOut)
		}
		contains("the cancelled run's stderr", r.errOut, "[run finished: cancelled]\n")
	})

	t.Run("Ctrl-C cancels", func(t *testing.T) {
		ctx, interrupt := context.WithCancel(context.Background())
		defer interrupt()
		go func() { waitHeld(t, up); interrupt() }()
		code, _, errOut := axonCtx(ctx, "--session", "s3", "hold still")
		if code != 1 {
			t.Errorf("exit %d, want 1 (cancelled); stderr:\n%s", code, errOut)
		}
		contains("stderr", errOut, "axon: stopping: cancelling run ", "[run finished: cancelled]\n")
	})

	t.Run("resume a paused run", func(t *testing.T) {
		up.down.Store(true)
		code, _, errOut := axon("--session", "s4", "--tools", "clock", "hi")
		up.down.Store(false)
		paused := regexp.MustCompile(`\[run (\S+) paused: `).FindStringSubmatch(errOut)
		if code != exitRunPaused || paused == nil {
			t.Fatalf("every provider down: exit %d, want %d (paused); stderr:\n%s", code, exitRunPaused, errOut)
		}
		code, out, errOut := axon("--session", "s4", "--resume")
		if code != 0 || strings.TrimSpace(out) != "It is noon." {
			t.Fatalf("--resume: exit %d, stdout %q; stderr:\n%s", code, out, errOut)
		}
		contains("--resume's stderr", errOut, "[run "+paused[1]+" resumed]\n", "[now call_1: ok] ", "[run finished: completed]\n")
		code, _, errOut = axon("--session", "s4", "--resume")
		if code != 1 || !strings.Contains(errOut, `axon: session "s4" has no paused run to resume`) {
			t.Errorf("--resume with nothing paused: exit %d; stderr:\n%s", code, errOut)
		}
	})

	t.Run("wrong token", func(t *testing.T) {
		wrong := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(wrong, []byte("wrong-token\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		text, _ := os.ReadFile(cfg)
		other := filepath.Join(t.TempDir(), "axon.hcl")
		os.WriteFile(other, []byte(strings.Replace(string(text), token, wrong, 1)), 0o600)
		code, out, errOut := run(t, nil, "--config", other, "run", "--project-root", root, "--session", "s5", "hi")
		if code != 1 || out != "" || !strings.Contains(errOut, "axon: axon serve at "+sock+" refused the request: missing or wrong axon token") {
			t.Errorf("exit %d, stdout %q, want 1 and the daemon's reason; stderr:\n%s", code, out, errOut)
		}
		if strings.Contains(errOut, "[run") {
			t.Errorf("a refused request ran in-process:\n%s", errOut)
		}
	})
}

// TestRunWithoutADaemonRunsInProcess: no socket file, or one nobody
// listens on: axon run drives the run itself, with its own plugins.
func TestRunWithoutADaemonRunsInProcess(t *testing.T) {
	buildRunDaemon(t)
	up := newToolUpstream(t)
	for _, stale := range []bool{false, true} {
		t.Run(fmt.Sprintf("stale socket %v", stale), func(t *testing.T) {
			dir := t.TempDir()
			cfg := daemonRunConfig(t, dir, "127.0.0.1:0", filepath.Join(dir, "token"), up.URL)
			if stale {
				l, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "axon.sock"), Net: "unix"})
				if err != nil {
					t.Fatal(err)
				}
				l.SetUnlinkOnClose(false)
				l.Close()
			}
			code, out, errOut := run(t, nil, "--config", cfg, "run", "--project-root", t.TempDir(), "--session", "s1", "--tools", "clock", "what time is it?")
			if code != 0 || strings.TrimSpace(out) != "It is noon." {
				t.Fatalf("exit %d, stdout %q; stderr:\n%s", code, out, errOut)
			}
			if strings.Contains(errOut, "axon serve") || !strings.Contains(errOut, "[now call_1: ok] ") || !strings.Contains(errOut, "[run finished: completed]\n") {
				t.Errorf("stderr, want the run shown in-process:\n%s", errOut)
			}
		})
	}
}

// waitHeld waits until the upstream holds a model call.
func waitHeld(t *testing.T, up *toolUpstream) {
	t.Helper()
	select {
	case <-up.held:
	case <-time.After(frontDoorHangGuard):
		t.Error("no model call reached the upstream")
	}
}

// TestRunDaemonDiesWhileFollowing: axon serve killed mid-run is no reason
// to run the prompt here: axon run says the stream broke off and how to
// follow the run again (its key), and exits 1.
func TestRunDaemonDiesWhileFollowing(t *testing.T) {
	buildRunDaemon(t)
	up := newToolUpstream(t)
	dir := t.TempDir()
	cfg := daemonRunConfig(t, dir, "127.0.0.1:0", filepath.Join(dir, "token"), up.URL)
	_, serve := startServe(t, cfg)
	go func() {
		waitHeld(t, up)
		serve.Process.Kill()
	}()
	code, out, errOut := run(t, nil, "--config", cfg, "run", "--project-root", t.TempDir(), "--session", "s1", "--idempotency-key", "k9", "hold it")
	if code != 1 || out != "" {
		t.Errorf("exit %d, stdout %q, want 1 and nothing; stderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"runs in axon serve at ", "axon: lost the event stream from axon serve at ", "send the same prompt with --idempotency-key k9\n"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errOut)
		}
	}
}
