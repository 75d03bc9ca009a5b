package cli

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/axonhq/axon/host/internal/testbin"
)

// gatedUpstream answers "from NAME" as an OpenAI stream, but holds every
// request until release is called; arrived counts the requests it holds.
type gatedUpstream struct {
	*httptest.Server
	arrived atomic.Int64
	arrival chan struct{} // one send per request held
	gate    chan struct{}
	once    sync.Once
}

func newGatedUpstream(t *testing.T, name string) *gatedUpstream {
	u := &gatedUpstream{gate: make(chan struct{}), arrival: make(chan struct{}, 64)}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		u.arrived.Add(1)
		select {
		case u.arrival <- struct{}{}:
		default:
		}
		<-u.gate
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"from %s\"}}]}\n\n", name)
		io.WriteString(w, "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(func() { u.release(); u.Close() })
	return u
}

func (u *gatedUpstream) release() { u.once.Do(func() { close(u.gate) }) }

// TestServeReloadWithRequestsInFlight: SIGHUP and `axon reload` apply a
// new chain order while requests run: none of those fails, the next
// request takes the new order, the providers' processes are kept (only
// the chain changed), and a configuration the checks refuse changes
// nothing and says why.
func TestServeReloadWithRequestsInFlight(t *testing.T) {
	frontDoorOnce.Do(func() {
		frontDoorErr = testbin.BuildInto(binDir,
			testbin.Target{Name: "axon", Pkg: "../cmd/axon"},
			testbin.Target{Name: "axon-provider-hostile", Pkg: "../internal/testplugin"},
		)
	})
	if frontDoorErr != nil {
		t.Fatal(frontDoorErr)
	}
	slow := newGatedUpstream(t, "a")
	fast := openaiUpstream(t, 200, "from b")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "axon.hcl")
	write := func(order string) {
		t.Helper()
		text := fmt.Sprintf("axon {\n  listen      = \"127.0.0.1:0\"\n  unix_socket = %q\n  state_dir   = %q\n  plugin_dir  = %q\n}\n",
			filepath.Join(dir, "axon.sock"), filepath.Join(dir, "state"), binDir) +
			routedProvider("a", slow.URL, "") + routedProvider("b", fast.URL, "") +
			"# the order under test\nchain \"default\" {\n  providers = [" + order + "]\n  retry { attempts = 1 }\n}\n"
		if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("provider.a, provider.b")
	base, cmd := startServe(t, cfg)

	const inFlight = 4
	results := make(chan string, inFlight)
	for range inFlight {
		go func() {
			resp, err := (&http.Client{Timeout: frontDoorHangGuard}).Post(base+"/v1/chat/completions", "application/json",
				strings.NewReader(`{"model":"default","messages":[{"role":"user","content":"hi"}]}`))
			if err != nil {
				results <- err.Error()
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			results <- fmt.Sprintf("%d %s %s", resp.StatusCode, resp.Header.Get("X-Axon-Provider"), body)
		}()
	}
	deadline := time.Now().Add(frontDoorHangGuard)
	guard := time.After(frontDoorHangGuard)
	for range inFlight {
		select {
		case <-slow.arrival:
		case <-guard:
			t.Fatalf("only %d of %d requests reached the upstream", slow.arrived.Load(), inFlight)
		}
	}

	write("provider.b, provider.a")
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	// The reload is done when /v1/models lists the chain's pins in the
	// new order (asking a chain would hang on the held upstream).
	for !strings.Contains(getBody(t, base+"/v1/models"), `"id":"default/b"`+`,"object":"model"`) ||
		strings.Index(getBody(t, base+"/v1/models"), `"default/b"`) > strings.Index(getBody(t, base+"/v1/models"), `"default/a"`) {
		if time.Now().After(deadline) {
			t.Fatalf("SIGHUP did not reload: %s", getBody(t, base+"/v1/models"))
		}
		// No event says a SIGHUP was handled but what it changed: poll
		// that, bounded by the hang guard.
		time.Sleep(10 * time.Millisecond)
	}
	if p := askServe(t, base); p != "b" {
		t.Errorf("after SIGHUP the next request went to %s, want b", p)
	}
	slow.release()
	for range inFlight {
		if got := <-results; !strings.HasPrefix(got, "200 a ") || !strings.Contains(got, "from a") {
			t.Errorf("a request in flight across the reload: %s", got)
		}
	}

	// A web page cannot drive a reload: no custom header without a CORS
	// preflight, and an Origin is refused outright.
	for _, h := range []http.Header{{}, {"X-Axon-Reload": {"1"}, "Origin": {"http://evil.example"}}} {
		req, _ := http.NewRequest(http.MethodPost, base+"/v1/reload", nil)
		req.Header = h
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST /v1/reload with %v: status %d, want 403", h, resp.StatusCode)
		}
	}

	write("provider.a, provider.b")
	code, out, errOut := run(t, nil, "reload", "--config", cfg)
	if code != 0 || !strings.Contains(out, "reloaded "+cfg) || !strings.Contains(out, "kept:    a, b") {
		t.Fatalf("axon reload: exit %d\n%s\n%s", code, out, errOut)
	}
	if p := askServe(t, base); p != "a" {
		t.Errorf("after axon reload the next request went to %s, want a", p)
	}

	// One the file's own checks refuse never leaves this command; one
	// only the daemon's plugin checks refuse (a binary not installed)
	// comes back from it with the reason.
	write("provider.a, provider.nope")
	code, out, errOut = run(t, nil, "reload", "--config", cfg)
	if code != 1 || !strings.Contains(errOut, `refers to provider "nope"`) {
		t.Errorf("an invalid configuration: exit %d\n%s\n%s", code, out, errOut)
	}
	write("provider.b, provider.a, provider.c")
	text, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, append(text, "provider \"c\" {\n  plugin = \"nosuch\"\n}\n"...), 0o600)
	code, out, errOut = run(t, nil, "reload", "--config", cfg)
	if code != 1 || !strings.Contains(errOut, "reload refused") || !strings.Contains(errOut, "axon-provider-nosuch") {
		t.Errorf("a configuration the daemon refuses: exit %d\n%s\n%s", code, out, errOut)
	}
	if p := askServe(t, base); p != "a" {
		t.Errorf("after a refused reload the next request went to %s, want a", p)
	}
}

func getBody(t *testing.T, url string) string {
	t.Helper()
	resp, err := (&http.Client{Timeout: frontDoorHangGuard}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
