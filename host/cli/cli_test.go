package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axonhq/axon/host/internal/testbin"
	"github.com/axonhq/axon/host/sandbox"
)

var binDir string

func TestMain(m *testing.M) {
	testbin.Main(m, &binDir, testbin.Target{Name: "axon-provider-openai", Pkg: "../../plugins/provider-openai"})
}

// run executes the command line in-process with a hermetic environment.
func run(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runEnv(context.Background(), t, env, args...)
}

// runEnv runs the CLI in-process with env and ctx, as main would.
func runEnv(ctx context.Context, t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	g := &globals{env: env_(t, env, &out, &errb)}
	root := newRoot(g)
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errb)
	if err := root.ExecuteContext(ctx); err != nil {
		code = 1
		if c, ok := err.(exitCode); ok {
			code = int(c)
		} else if err != errReported {
			fmt.Fprintln(&errb, "axon:", err)
		}
	}
	return code, out.String(), errb.String()
}

func env_(t *testing.T, vars map[string]string, out, errb io.Writer) env {
	return env{
		stdout: out, stderr: errb, home: t.TempDir(), exeDir: binDir,
		lookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
	}
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	return writeConfigAxon(t, "", text)
}

// writeConfigAxon is writeConfig with axonBody in the axon block
// (billing { enabled = true }).
func writeConfigAxon(t *testing.T, axonBody, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "axon.hcl")
	if axonBody != "" {
		axonBody = "  " + axonBody + "\n" // lines below the axon block move only when there is one
	}
	full := fmt.Sprintf("axon {\n  state_dir = %q\n  plugin_dir = %q\n%s}\n%s", t.TempDir(), binDir, axonBody, text)
	if err := os.WriteFile(p, []byte(full), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func openaiUpstream(t testing.TB, status int, body string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if status != http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, body)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, word := range strings.Fields(body) {
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"model\":\"m-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", word+" ")
		}
		io.WriteString(w, "data: {\"id\":\"c\",\"model\":\"m-1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func chainConfig(url string) string {
	return `
provider "mock" {
  plugin   = "openai"
  base_url = "` + url + `/v1"
  model    = "m"
}
chain "default" {
  providers = [provider.mock]
  retry { backoff = "1ms" }
}
`
}

func TestAskStreamsTheAnswer(t *testing.T) {
	up := openaiUpstream(t, 200, "hello from the mock")
	code, out, errOut := run(t, nil, "ask", "-v", "--config", writeConfig(t, chainConfig(up.URL)), "hi")
	if code != 0 || strings.TrimSpace(out) != "hello from the mock" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "trail: mock#1 ok") {
		t.Errorf("-v did not print the trail: %s", errOut)
	}
}

func TestAskExhaustedChainExitsOneWithAReason(t *testing.T) {
	up := openaiUpstream(t, 503, `{"error":{"message":"down","type":"server_error"}}`)
	code, out, errOut := run(t, nil, "ask", "--config", writeConfig(t, chainConfig(up.URL)), "hi")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stdout %q stderr %s", code, out, errOut)
	}
	if !strings.Contains(errOut, `chain "default" could not answer`) || !strings.Contains(errOut, "hint:") {
		t.Errorf("stderr lacks the reason and the hint: %s", errOut)
	}
}

func TestCheck(t *testing.T) {
	up := openaiUpstream(t, 200, "x")
	code, out, errOut := run(t, nil, "check", "--config", writeConfig(t, chainConfig(up.URL)))
	if code != 0 || !strings.Contains(out, "ok  provider mock") {
		t.Fatalf("good config: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "    sandbox: user,pid,mount,net,ipc,uts,cgroup,nocaps,nnp,seccomp") {
		t.Errorf("check does not print the plugin's sandbox layers:\n%s", out)
	}
	if _, err := sandbox.LookupSubIDs(); os.Geteuid() != 0 && err != nil && !strings.Contains(out, "is the host's own") {
		t.Errorf("an unprivileged check does not say its plugins keep its uid:\n%s", out)
	}
	bad := writeConfig(t, `
provider "mock" {
  plugin   = "openai"
  base_url = "http://127.0.0.1:1/v1"
  modle    = "m"
}
chain "default" { providers = [provider.mock] }
`)
	code, _, errOut = run(t, nil, "check", "--config", bad)
	if code != 1 || !strings.Contains(errOut, "axon.hcl line 9") || !strings.Contains(errOut, `"model"`) {
		t.Fatalf("plugin-owned typo: exit %d, stderr:\n%s", code, errOut)
	}
	code, _, errOut = run(t, nil, "check", "--config", writeConfig(t, `chain "default" { providers = [provider.nope] }`))
	if code != 1 || !strings.Contains(errOut, "nope") {
		t.Fatalf("unknown provider: exit %d, stderr:\n%s", code, errOut)
	}
}

func TestTokenIsCreatedOnceWithMode0600(t *testing.T) {
	cfg := writeConfig(t, chainConfig("http://127.0.0.1:1"))
	code, first, errOut := run(t, nil, "token", "--config", cfg)
	if code != 0 || len(strings.TrimSpace(first)) != 64 {
		t.Fatalf("exit %d token %q %s", code, first, errOut)
	}
	_, second, _ := run(t, nil, "token", "--config", cfg)
	if first != second {
		t.Error("a second `axon token` made a new token")
	}
}

func TestServeRefusesNonLoopbackWithoutToken(t *testing.T) {
	cfg := writeConfig(t, chainConfig("http://127.0.0.1:1"))
	text, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, []byte(strings.Replace(string(text), "axon {", "axon {\n  listen = \"0.0.0.0:0\"", 1)), 0o600)
	code, _, errOut := run(t, nil, "serve", "--config", cfg)
	if code != 1 || !strings.Contains(errOut, "requires a bearer token") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

func TestPluginsListsAndLocks(t *testing.T) {
	cfg := writeConfig(t, chainConfig("http://127.0.0.1:1"))
	code, out, errOut := run(t, nil, "plugins", "--config", cfg)
	if code != 0 || !strings.Contains(out, "openai") || !strings.Contains(out, "provider") {
		t.Fatalf("plugins: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = run(t, nil, "plugins", "lock", "--config", cfg)
	if code != 0 || !strings.Contains(out, "wrote") {
		t.Fatalf("lock: exit %d\n%s\n%s", code, out, errOut)
	}
	lock, err := os.ReadFile(filepath.Join(filepath.Dir(cfg), "axon.lock.hcl"))
	if err != nil || !strings.Contains(string(lock), "axon-provider-openai") {
		t.Fatalf("lock file: %v\n%s", err, lock)
	}
	// A tampered pin is refused by the supervisor.
	os.WriteFile(filepath.Join(filepath.Dir(cfg), "axon.lock.hcl"), []byte(flipHex(string(lock))), 0o600)
	code, _, errOut = run(t, nil, "check", "--config", cfg)
	if code != 1 || !strings.Contains(errOut, "sha256") {
		t.Fatalf("tampered lock: exit %d\n%s", code, errOut)
	}
}

// flipHex changes the first hex digit of the first sha256 in a lock file.
func flipHex(lock string) string {
	i := strings.Index(lock, `sha256 = "`) + len(`sha256 = "`)
	c := byte('0')
	if lock[i] == '0' {
		c = '1'
	}
	return lock[:i] + string(c) + lock[i+1:]
}

func TestVersion(t *testing.T) {
	code, out, _ := run(t, nil, "version")
	if code != 0 || !strings.HasPrefix(out, "axon ") {
		t.Fatalf("%d %q", code, out)
	}
}
