package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/axonhq/axon/host/internal/testbin"
	"github.com/axonhq/axon/internal/pluginrpc"
)

var buildOnce sync.Once

// buildAll builds the axon binary and the plugins the memory benchmark runs.
func buildAll(b *testing.B) {
	buildOnce.Do(func() {
		err := testbin.BuildInto(binDir,
			testbin.Target{Name: "axon", Pkg: "../cmd/axon"},
			testbin.Target{Name: "axon-provider-anthropic", Pkg: "../../plugins/provider-anthropic"},
			testbin.Target{Name: "axon-display-epd", Pkg: "../../plugins/display-epd"},
		)
		if err != nil {
			b.Fatal(err)
		}
	})
}

func rssKB(pid int) int {
	f, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(f), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}

// children lists the pids whose parent is pid.
func children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+2:])
		if f := strings.Fields(rest); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}

// BenchmarkIdleRSS runs a real `axon serve` with an OpenAI-format and an
// Anthropic-format provider, both started by one request each, and reports
// the resident memory of the host and of each plugin process once idle.
// The epd display plugin is measured separately, unconfigured (there is no
// panel on this machine), after the host fetched its Info.
func BenchmarkIdleRSS(b *testing.B) {
	buildAll(b)
	up := openaiUpstream(b, 200, "hi")
	cfg := filepath.Join(b.TempDir(), "axon.hcl")
	text := fmt.Sprintf(`axon {
  listen = "127.0.0.1:0"
  state_dir = %q
  plugin_dir = %q
}
provider "a" {
  plugin   = "openai"
  base_url = "%s/v1"
  model    = "m"
}
provider "b" {
  plugin   = "anthropic"
  base_url = "%s"
  model    = "m"
}
chain "default" { providers = [provider.a, provider.b] }
`, b.TempDir(), binDir, up.URL, up.URL)
	os.WriteFile(cfg, []byte(text), 0o600)
	cmd := exec.Command(filepath.Join(binDir, "axon"), "serve", "--config", cfg)
	cmd.Env = []string{"HOME=" + b.TempDir()}
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	addr := strings.Fields(strings.TrimPrefix(line, "axon listening on "))[0]
	for _, model := range []string{"default/a", "default/b"} {
		resp, err := http.Post(addr+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"`+model+`","messages":[{"role":"user","content":"hi"}]}`))
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	for range b.N {
	}
	b.ReportMetric(float64(rssKB(cmd.Process.Pid)), "host-RSS-kB")
	for i, pid := range children(cmd.Process.Pid) {
		b.ReportMetric(float64(rssKB(pid)), fmt.Sprintf("plugin%d-RSS-kB", i+1))
	}
	b.ReportMetric(float64(epdIdleRSS(b)), "epd-unconfigured-RSS-kB")
}

func epdIdleRSS(b *testing.B) int {
	c := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: pluginrpc.Handshake, VersionedPlugins: pluginrpc.ClientPlugins(),
		Cmd: exec.Command(filepath.Join(binDir, "axon-display-epd")), AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS: true, SkipHostEnv: true, Logger: hclog.NewNullLogger(),
	})
	defer c.Kill()
	rpc, err := c.Client()
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := rpc.Dispense(pluginrpc.NameBase)
	if _, err := raw.(*pluginrpc.BaseClient).Info(context.Background()); err != nil {
		b.Fatal(err)
	}
	return rssKB(c.ReattachConfig().Pid)
}
