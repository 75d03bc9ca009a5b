package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/axonhq/axon/host/internal/testbin"
)

// The front door's limits, claimed of a real `axon serve` with a real
// plugin process: the hostile test plugin (host/internal/testplugin), whose
// "forever" streams until cancelled and whose "flood COUNT SIZE" answers
// with more than any host should buffer.

var (
	frontDoorOnce sync.Once
	frontDoorErr  error
)

// frontDoorHangGuard bounds every wait below; it is no claim.
const frontDoorHangGuard = 30 * time.Second

// serveHostile starts `axon serve --grace grace` on a chain of the hostile
// plugin and returns its base URL and process.
func serveHostile(t *testing.T, grace time.Duration) (string, *exec.Cmd) {
	t.Helper()
	frontDoorOnce.Do(func() {
		frontDoorErr = testbin.BuildInto(binDir,
			testbin.Target{Name: "axon", Pkg: "../cmd/axon"},
			testbin.Target{Name: "axon-provider-hostile", Pkg: "../internal/testplugin"},
		)
	})
	if frontDoorErr != nil {
		t.Fatal(frontDoorErr)
	}
	cfg := filepath.Join(t.TempDir(), "axon.hcl")
	text := fmt.Sprintf(`axon {
  listen     = "127.0.0.1:0"
  state_dir  = %q
  plugin_dir = %q
}
provider "h" { plugin = "hostile" }
chain "default" { providers = [provider.h] }
`, t.TempDir(), binDir)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return startServe(t, cfg, "--grace", grace.String())
}

// TestServeShutdownEndsStreams: streams still running when the grace after
// SIGTERM is over end with their format's in-band error, not a silent cut,
// and axon exits cleanly.
func TestServeShutdownEndsStreams(t *testing.T) {
	base, cmd := serveHostile(t, 200*time.Millisecond)
	formats := []struct{ path, body, last string }{
		{"/v1/chat/completions", `{"model":"default","stream":true,"messages":[{"role":"user","content":"forever"}]}`,
			`data: {"error":{"message":"axon is shutting down: the response was cut off before its end; retry the request","type":"server_error","param":null,"code":"shutting_down"}}`},
		{"/v1/messages", `{"model":"default","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"forever"}]}`,
			"event: error\n" + `data: {"type":"error","error":{"type":"overloaded_error","message":"axon is shutting down: the response was cut off before its end; retry the request"}}`},
	}
	client := &http.Client{Timeout: frontDoorHangGuard}
	bodies := make([]*bufio.Reader, len(formats))
	for i, f := range formats {
		resp, err := client.Post(base+f.path, "application/json", strings.NewReader(f.body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d: %s", f.path, resp.StatusCode, readAllString(resp.Body))
		}
		bodies[i] = bufio.NewReader(resp.Body)
		for line := ""; !strings.Contains(line, "tick 0"); {
			if line, err = bodies[i].ReadString('\n'); err != nil {
				t.Fatalf("%s: reading the first tick: %v", f.path, err)
			}
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for i, f := range formats {
		rest := strings.TrimSpace(readAllString(bodies[i]))
		if !strings.HasSuffix(rest, f.last) {
			t.Errorf("%s: the stream ends\n%s\nwant it to end with\n%s", f.path, rest[max(0, len(rest)-300):], f.last)
		}
		if strings.Contains(rest, "[DONE]") || strings.Contains(rest, "message_stop") {
			t.Errorf("%s: a cut stream ended as complete", f.path)
		}
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("axon serve exited with %v", err)
		}
	case <-time.After(frontDoorHangGuard):
		t.Fatal("axon serve did not exit after SIGTERM")
	}
}

// TestServeAnswerLimit: a plugin answering a gigabyte to a whole
// (non-streamed) request gets the client a clean 502 naming the limit, and
// the host's peak resident memory stays a fraction of the answer (before the
// limit it grew to 9 GB).
func TestServeAnswerLimit(t *testing.T) {
	base, cmd := serveHostile(t, time.Second)
	client := &http.Client{Timeout: frontDoorHangGuard}
	resp, err := client.Post(base+"/v1/messages", "application/json",
		strings.NewReader(`{"model":"default","max_tokens":5,"messages":[{"role":"user","content":"flood 1024 1048576"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body := readAllString(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "the answer exceeded the limit of 67108864 bytes") {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if peak := peakRSSKB(t, cmd.Process.Pid); peak > 512<<10 {
		t.Errorf("the host's peak RSS was %d MiB for a 1 GiB answer refused at 64 MiB", peak>>10)
	} else {
		t.Logf("host peak RSS %d MiB", peak>>10)
	}
}

// peakRSSKB is the VmHWM of pid, in kB.
func peakRSSKB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("the host's memory is read from /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int
			if _, err := fmt.Sscan(v, &kb); err == nil {
				return kb
			}
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

func readAllString(r io.Reader) string {
	b, err := io.ReadAll(r)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return string(b) + " [read error: " + err.Error() + "]"
	}
	return string(b)
}
