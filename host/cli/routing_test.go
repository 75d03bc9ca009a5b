package cli

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/axonhq/axon/host/internal/testbin"
	"github.com/axonhq/axon/host/routing"
)

// routedProvider is a provider block for the openai upstream at url.
func routedProvider(name, url, extra string) string {
	return fmt.Sprintf("provider %q {\n  plugin   = \"openai\"\n  base_url = %q\n  model    = \"m\"\n  %s\n}\n", name, url+"/v1", extra)
}

// TestAskTask: `axon ask --task code` routes to the provider good at code
// first, and -v prints the route line before the attempts.
func TestAskTask(t *testing.T) {
	plain, coder := openaiUpstream(t, 200, "from plain"), openaiUpstream(t, 200, "from coder")
	cfg := writeConfig(t, routedProvider("plain", plain.URL, "")+routedProvider("coder", coder.URL, `good_at = ["code"]`)+
		"chain \"default\" { providers = [provider.plain, provider.coder] }\n")
	code, out, errOut := run(t, nil, "ask", "-v", "--task", "code", "--config", cfg, "hi")
	if code != 0 || strings.TrimSpace(out) != "from coder" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "trail: route task=code fit=coder strategy=ordered order=coder,plain gate=off; coder#1 ok") {
		t.Errorf("-v trail: %s", errOut)
	}
	if code, out, _ := run(t, nil, "ask", "--config", cfg, "hi"); code != 0 || strings.TrimSpace(out) != "from plain" {
		t.Errorf("no task: exit %d, stdout %q", code, out)
	}
}

// TestAskPaidGateHint: a chain of nothing but a paid provider with billing
// off fails at once, and the hint says how to open the gate.
func TestAskPaidGateHint(t *testing.T) {
	paid := openaiUpstream(t, 200, "spent")
	cfg := writeConfig(t, routedProvider("gpt", paid.URL, `tier = "api"`)+"chain \"default\" { providers = [provider.gpt] }\n")
	code, out, errOut := run(t, nil, "ask", "--config", cfg, "hi")
	if code != 1 || out != "" || !strings.Contains(errOut, "billing { enabled = true }") {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
}

// TestServeRotationSurvivesKill: a rotating chain's cursor is in the state
// directory: `axon serve` killed with SIGKILL and started again goes on
// where it was, not back at the first provider.
func TestServeRotationSurvivesKill(t *testing.T) {
	frontDoorOnce.Do(func() {
		frontDoorErr = testbin.BuildInto(binDir,
			testbin.Target{Name: "axon", Pkg: "../cmd/axon"},
			testbin.Target{Name: "axon-provider-hostile", Pkg: "../internal/testplugin"},
		)
	})
	if frontDoorErr != nil {
		t.Fatal(frontDoorErr)
	}
	a, b, c := openaiUpstream(t, 200, "from a"), openaiUpstream(t, 200, "from b"), openaiUpstream(t, 200, "from c")
	stateDir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "axon.hcl")
	text := fmt.Sprintf("axon {\n  listen     = \"127.0.0.1:0\"\n  state_dir  = %q\n  plugin_dir = %q\n}\n", stateDir, binDir) +
		routedProvider("a", a.URL, "") + routedProvider("b", b.URL, "") + routedProvider("c", c.URL, "") +
		"chain \"default\" {\n  providers = [provider.a, provider.b, provider.c]\n  strategy  = \"rotate\"\n}\n"
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}

	base, cmd := startServe(t, cfg)
	var got []string
	for range 4 {
		got = append(got, askServe(t, base))
	}
	if strings.Join(got, ",") != "a,b,c,a" {
		t.Fatalf("answered by %v, want a,b,c,a", got)
	}
	waitFile(t, routing.CursorPath(stateDir, "default"), `{"cursor":4}`)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("axon serve was not killed: %v", err)
	}

	base, _ = startServe(t, cfg)
	if p := askServe(t, base); p != "b" {
		t.Errorf("after kill -9 the first request went to %s, want b (the cursor at 4 of 3 providers)", p)
	}
}

// startServe starts `axon serve --config cfg [args]` and returns its base
// URL; the process is killed when the test ends (its log shown if it failed).
func startServe(t *testing.T, cfg string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	return startServeEnv(t, nil, cfg, args...)
}

// startServeEnv is startServe with env added to the process's environment
// (HOME alone otherwise).
func startServeEnv(t *testing.T, env []string, cfg string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "axon"), append([]string{"serve", "--config", cfg}, args...)...)
	cmd.Env = append([]string{"HOME=" + t.TempDir()}, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("axon serve's log:\n%s", stderr.String())
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("axon serve did not start: %v", err)
	}
	return strings.Fields(strings.TrimPrefix(line, "axon listening on "))[0], cmd
}

// askServe sends one chat completion and returns the provider that
// answered.
func askServe(t *testing.T, base string) string {
	t.Helper()
	client := &http.Client{Timeout: frontDoorHangGuard}
	resp, err := client.Post(base+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"default","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s (trail %s)", resp.StatusCode, body, resp.Header.Get("X-Axon-Trail"))
	}
	return resp.Header.Get("X-Axon-Provider")
}

// waitFile waits until path holds want (trimmed): the cursor is written a
// moment after the answer, off the request path.
func waitFile(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(frontDoorHangGuard)
	for {
		b, _ := os.ReadFile(path)
		if strings.TrimSpace(string(b)) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %q, want %s", path, b, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCheckShowsGatedProviders: check prints every provider's routing,
// and a paid or disabled one is shown, not hidden, with why it is never
// routed.
func TestCheckShowsGatedProviders(t *testing.T) {
	up := openaiUpstream(t, 200, "x")
	cfg := writeConfig(t, routedProvider("local", up.URL, `tier = "local"
  good_at = ["code", "chat"]`)+
		routedProvider("gpt", up.URL, `tier = "api"
  budget { usd_per_month = 20 }`)+
		routedProvider("off", up.URL, `enabled = false`)+
		"chain \"default\" { providers = [provider.local, provider.off, provider.gpt] }\n")
	code, out, errOut := run(t, nil, "check", "--config", cfg)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"    routing: tier local, good at code, chat; routed\n",
		"    routing: tier api, budget $20/month; never routed: paid tier and billing is off\n",
		"    routing: tier unset; never routed: enabled = false\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "Paid provider is never routed") {
		t.Errorf("no warning for the paid provider:\n%s", errOut)
	}

	cfg = writeConfigAxon(t, "billing { enabled = true }", routedProvider("gpt", up.URL, `tier = "api"
  enabled = true`)+"chain \"default\" { providers = [provider.gpt] }\n")
	if code, out, errOut := run(t, nil, "check", "--config", cfg); code != 0 || !strings.Contains(out, "    routing: tier api; routed only as the last resort (paid)\n") {
		t.Errorf("billing on: exit %d\n%s\n%s", code, out, errOut)
	}
}
