package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/axonhq/axon/host/internal/testbin"
)

// TestServeProfiling runs a real `axon serve --pprof ADDR --plugin-profiles
// DIR` with a real plugin process: the host's profiles answer on ADDR and
// nowhere on the front door, and the plugin leaves its CPU and allocation
// profiles in DIR/<instance>/ when axon stops.
func TestServeProfiling(t *testing.T) {
	frontDoorOnce.Do(func() {
		frontDoorErr = testbin.BuildInto(binDir,
			testbin.Target{Name: "axon", Pkg: "../cmd/axon"},
			testbin.Target{Name: "axon-provider-hostile", Pkg: "../internal/testplugin"},
		)
	})
	if frontDoorErr != nil {
		t.Fatal(frontDoorErr)
	}
	profiles := filepath.Join(t.TempDir(), "profiles")
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
	pprofAddr := freeLoopbackAddr(t)
	front, cmd := startServe(t, cfg, "--pprof", pprofAddr, "--plugin-profiles", profiles)

	client := &http.Client{Timeout: frontDoorHangGuard}
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.StatusCode, readAllString(resp.Body)
	}
	for _, p := range []string{"/debug/pprof/cmdline", "/debug/pprof/allocs"} {
		if code, body := get("http://" + pprofAddr + p); code != http.StatusOK || body == "" {
			t.Errorf("pprof listener %s: %d %.100q, want 200 and a profile", p, code, body)
		}
		if code, body := get(front + p); code == http.StatusOK {
			t.Errorf("front door %s answers 200: %.100q", p, body)
		}
	}
	resp, err := client.Post(front+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"default","messages":[{"role":"user","content":"hello"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if body := readAllString(resp.Body); resp.StatusCode != http.StatusOK {
		t.Fatalf("chat: %d %s", resp.StatusCode, body)
	}
	resp.Body.Close()

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
	case <-time.After(frontDoorHangGuard):
		t.Fatal("axon serve did not exit after SIGTERM")
	}
	for _, name := range []string{"cpu.pprof", "allocs.pprof"} {
		if st, err := os.Stat(filepath.Join(profiles, "h", name)); err != nil || st.Size() == 0 {
			t.Errorf("plugin profile %s: %v", name, err)
		}
	}
}

// TestServePprofOnlyOnLoopback: a pprof address that is not loopback is
// refused before anything is served.
func TestServePprofOnlyOnLoopback(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), frontDoorHangGuard)
	defer cancel()
	cfg := writeConfig(t, chainConfig("http://127.0.0.1:1"))
	code, _, stderr := runEnv(ctx, t, nil, "serve", "--config", cfg, "--pprof", "0.0.0.0:0")
	if code != 1 || !strings.Contains(stderr, "loopback") {
		t.Errorf("serve --pprof 0.0.0.0:0: exit %d, stderr %q; want 1 and a loopback error", code, stderr)
	}
}

// freeLoopbackAddr is a loopback address nothing listens on right now.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
