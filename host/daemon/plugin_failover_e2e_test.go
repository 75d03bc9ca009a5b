package daemon

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/axonhq/axon/host/internal/testbin"
	"github.com/axonhq/axon/host/supervisor"
)

// Plugin death and restart at the chain level (issue 12): real plugin
// subprocesses, SIGKILLed or crash-looping, with a healthy backup.

// pfInFlight is how many requests wait in the first plugin when it is
// killed: under the egress's max_concurrent (16), so none is refused.
const pfInFlight = 12

// pfProviders is a chain of two OpenAI-compatible plugins, each on its own
// upstream, with the default first-token timeout (a held request must not
// time out before the kill).
func pfProviders(first, second *upstream, attempts int) string {
	return `
provider "first" {
  plugin   = "openai"
  base_url = "` + first.URL + `/v1"
  model    = "gpt-test"
}
provider "second" {
  plugin   = "openai"
  base_url = "` + second.URL + `/v1"
  model    = "gpt-backup"
}
chain "default" {
  providers = [provider.first, provider.second]
  retry {
    attempts = ` + itoa(attempts) + `
    backoff  = "10ms"
  }
}
`
}

// TestPluginKilledWithRequestsInFlight: the first provider's plugin is
// SIGKILLed while pfInFlight requests, streamed and not, wait in it with
// no content sent. Every request is answered: its first attempt is a
// transient plugin_exited, retried on the restarted plugin when the policy
// has a retry left, else fallen back to the second provider; none ends as
// permanent or canceled.
func TestPluginKilledWithRequestsInFlight(t *testing.T) {
	for _, c := range []struct {
		name      string
		attempts  int
		wantTrail string // every trail's prefix
		wantBy    string // the provider that answers every request
	}{
		{"retried on the restarted plugin", 2, "first#1 retry transient/plugin_exited", "first"},
		{"no retry left: falls back", 1, "first#1 fallback transient/plugin_exited", "second"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pfKillInFlight(t, c.attempts, c.wantTrail, c.wantBy)
		})
	}
}

func pfKillInFlight(t *testing.T, attempts int, wantTrail, wantBy string) {
	arrived := make(chan struct{}, pfInFlight)
	killed := make(chan struct{})
	first := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-killed: // a retry on the restarted plugin
			openaiText("gpt-test", "from", "first")(w, r)
			return
		default:
		}
		// Headers, then nothing: the plugin waits for its first chunk.
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		arrived <- struct{}{}
		<-r.Context().Done()
	})
	second := newUpstream(t, openaiText("gpt-backup", "from", "second"))
	r := newRig(t, pfProviders(first, second, attempts), Options{Supervisor: supervisorFast()})

	resps := make([]response, pfInFlight)
	var wg sync.WaitGroup
	for i := range pfInFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resps[i] = r.pfPost(chatBody("default", i%2 == 0))
		}()
	}
	for range pfInFlight {
		select {
		case <-arrived:
		case <-time.After(time.Minute):
			t.Fatal("the requests never all reached the first upstream")
		}
	}
	in, err := r.broker.Supervisor().Instance("first")
	if err != nil {
		t.Fatal(err)
	}
	pid := in.Pid()
	if pid <= 0 { // never kill(0): that signals the whole process group
		t.Fatalf("first plugin pid %d with requests in flight", pid)
	}
	close(killed)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wg.Wait()

	for i, resp := range resps {
		trail := resp.header.Get("X-Axon-Trail")
		if resp.status != http.StatusOK || !strings.Contains(resp.body, "from") {
			t.Errorf("request %d: %d %s (trail %s)", i, resp.status, resp.body, trail)
			continue
		}
		if !strings.HasPrefix(trail, wantTrail) {
			t.Errorf("request %d: trail %q, want it to start %q", i, trail, wantTrail)
		}
		if by := resp.header.Get("X-Axon-Provider"); by != wantBy {
			t.Errorf("request %d: answered by %q, want %q (trail %s)", i, by, wantBy, trail)
		}
		for _, bad := range []string{"permanent", "unclassified", "canceled"} {
			if strings.Contains(trail, bad) {
				t.Errorf("request %d: trail %q has %s", i, trail, bad)
			}
		}
	}
}

// TestCrashLoopingPluginIsSkipped: the first provider's plugin exits at
// every start, and its restart backoff is an hour, so a request that
// waited for it would hang the test. After the failed start, every request
// is answered by the backup with "first#1 fallback
// transient/plugin_restarting" in its trail and the crashed plugin not
// started again. Sessions start their tool plugins at admission: one whose
// tool crash-loops is refused at once (503) instead of hanging, and one
// without it still runs.
func TestCrashLoopingPluginIsSkipped(t *testing.T) {
	pfBuildCrasher(t)
	second := newUpstream(t, openaiText("gpt-backup", "from", "second"))
	r := newRig(t, `
provider "first" {
  plugin = "crasher"
  model  = "never"
}
provider "second" {
  plugin   = "openai"
  base_url = "`+second.URL+`/v1"
  model    = "gpt-backup"
}
chain "default" {
  providers = [provider.first, provider.second]
  retry {
    attempts = 3
    backoff  = "10ms"
  }
}
tool "crasher" {}
`, Options{Supervisor: supervisor.Options{BackoffBase: time.Hour}})

	// The first request starts the plugin, which exits: a failed start.
	resp := r.pfPost(chatBody("default", false))
	if resp.status != http.StatusOK || chatText(t, resp.body) != "from second" {
		t.Fatalf("first request: %d %s (trail %s)", resp.status, resp.body, resp.header.Get("X-Axon-Trail"))
	}
	for i := range 5 {
		resp := r.pfPost(chatBody("default", i%2 == 0))
		trail := resp.header.Get("X-Axon-Trail")
		if resp.status != http.StatusOK || !strings.Contains(resp.body, "second") {
			t.Errorf("request %d: %d %s (trail %s)", i, resp.status, resp.body, trail)
		}
		if !strings.HasPrefix(trail, "first#1 fallback transient/plugin_restarting") || strings.Contains(trail, "first#2") {
			t.Errorf("request %d: trail %q, want first skipped at once with plugin_restarting", i, trail)
		}
	}
	if got := second.count(); got != 6 {
		t.Errorf("backup answered %d requests, want 6", got)
	}

	// Sessions: admission asks the tool plugin for its tools.
	for i := range 2 { // the failed start, then the backoff
		resp := r.pfPostPath("/v1/sessions", fmt.Sprintf(`{"session":"s%d","prompt":"hi","tools":["crasher"]}`, i))
		if resp.status != http.StatusServiceUnavailable {
			t.Errorf("session %d with the crash-looping tool: %d %s, want 503", i, resp.status, resp.body)
		}
	}
	if resp := r.pfPostPath("/v1/sessions", `{"session":"plain","prompt":"hi"}`); resp.status != http.StatusCreated {
		t.Errorf("session without the tool: %d %s", resp.status, resp.body)
	}
}

// pfPost is rig.post on /v1/chat/completions with a deadline: a request
// that waits for a plugin's backoff fails the test instead of hanging it.
func (r *rig) pfPost(body string) response {
	r.t.Helper()
	return r.pfPostPath("/v1/chat/completions", body)
}

func (r *rig) pfPostPath(path, body string) response {
	r.t.Helper()
	client := &http.Client{Timeout: time.Minute}
	resp, err := client.Post(r.door.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		r.t.Errorf("POST %s: %v", path, err)
		return response{}
	}
	defer resp.Body.Close()
	var b strings.Builder
	io_Copy(&b, resp)
	return response{status: resp.StatusCode, header: resp.Header, body: b.String()}
}

var (
	pfCrasherOnce sync.Once
	pfCrasherErr  error
)

// pfBuildCrasher puts axon-provider-crasher and axon-tool-crasher, the test
// plugin built to exit at every start, into the rig's plugin_dir.
func pfBuildCrasher(t *testing.T) {
	t.Helper()
	pfCrasherOnce.Do(func() {
		pfCrasherErr = testbin.BuildInto(binDir,
			testbin.Target{Name: "axon-provider-crasher", Pkg: "../internal/testplugin", Tags: "crashatstart"},
			testbin.Target{Name: "axon-tool-crasher", Pkg: "../internal/testplugin", Tags: "crashatstart"})
	})
	if pfCrasherErr != nil {
		t.Fatal(pfCrasherErr)
	}
}
