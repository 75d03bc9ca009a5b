package cli

import (
	"bufio"
	"fmt"
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

var startupOnce sync.Once

// startupConfig is six providers over four plugins and two png displays.
func startupConfig(b *testing.B, stateDir string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "axon {\n  listen = \"127.0.0.1:0\"\n  state_dir = %q\n  plugin_dir = %q\n}\n", stateDir, binDir)
	for i, plugin := range []string{"openai", "openai", "anthropic", "anthropic", "gemini", "ollama"} {
		fmt.Fprintf(&sb, "provider \"p%d\" {\n  plugin   = %q\n  base_url = \"http://127.0.0.1:1\"\n  model    = \"m\"\n}\n", i, plugin)
	}
	sb.WriteString("chain \"default\" { providers = [provider.p0, provider.p2, provider.p4, provider.p5] }\n")
	for i := range 2 {
		dir := b.TempDir()
		fmt.Fprintf(&sb, "display \"d%d\" {\n  plugin = \"png\"\n  dir    = %q\n  grant { read_write = [%q] }\n}\n", i, dir, dir)
	}
	cfg := filepath.Join(b.TempDir(), "axon.hcl")
	if err := os.WriteFile(cfg, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	return cfg
}

// BenchmarkServeStartup measures a real `axon serve`, from exec to its
// first 200 on /healthz, with six providers (four plugin binaries) and two
// displays. cold starts from an empty state directory (every binary is
// inspected), warm from one an earlier start filled (the cached Info).
//
//	go test ./host/cli/ -run '^$' -bench BenchmarkServeStartup -benchtime 20x
func BenchmarkServeStartup(b *testing.B) {
	startupOnce.Do(func() {
		err := testbin.BuildInto(binDir,
			testbin.Target{Name: "axon", Pkg: "../cmd/axon"},
			testbin.Target{Name: "axon-provider-anthropic", Pkg: "../../plugins/provider-anthropic"},
			testbin.Target{Name: "axon-provider-gemini", Pkg: "../../plugins/provider-gemini"},
			testbin.Target{Name: "axon-provider-ollama", Pkg: "../../plugins/provider-ollama"},
			testbin.Target{Name: "axon-display-png", Pkg: "../../plugins/display-png"},
		)
		if err != nil {
			b.Fatal(err)
		}
	})
	b.Run("cold", func(b *testing.B) {
		var total time.Duration
		for range b.N {
			total += serveUntilHealthy(b, startupConfig(b, b.TempDir()))
		}
		b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-healthz")
	})
	b.Run("warm", func(b *testing.B) {
		cfg := startupConfig(b, b.TempDir())
		serveUntilHealthy(b, cfg)
		var total time.Duration
		for range b.N {
			total += serveUntilHealthy(b, cfg)
		}
		b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-healthz")
	})
}

// stop ends serve as systemd would, SIGTERM, so that it stops its plugins.
func stop(cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// serveUntilHealthy starts `axon serve --config cfg`, waits for its first
// 200 on /healthz, and stops it; it returns the time from exec to that 200.
func serveUntilHealthy(b *testing.B, cfg string) time.Duration {
	b.Helper()
	cmd := exec.Command(filepath.Join(binDir, "axon"), "serve", "--config", cfg)
	cmd.Env = []string{"HOME=" + b.TempDir()}
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer stop(cmd)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	addr := strings.Fields(strings.TrimPrefix(line, "axon listening on "))[0]
	for {
		resp, err := http.Get(addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(start)
			}
		}
		if time.Since(start) > 30*time.Second {
			b.Fatalf("no healthy /healthz after 30s (last: %v)\n%s", err, stderr.String())
		}
		time.Sleep(time.Millisecond)
	}
}
