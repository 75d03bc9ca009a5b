package daemon

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/axonhq/axon/host/supervisor"
)

// TestIdleProviderIsStoppedAndAnswersAgain: a provider block's idle_stop
// reaches the supervisor, which stops the idle plugin process; the next
// request through the front door starts it again and is answered by it on
// the first attempt, as if it had never stopped.
func TestIdleProviderIsStoppedAndAnswersAgain(t *testing.T) {
	up := newUpstream(t, openaiText("gpt-test", "hi"))
	r := newRig(t, `
provider "first" {
  plugin    = "openai"
  base_url  = "`+up.URL+`/v1"
  model     = "gpt-test"
  idle_stop = "50ms"
}
chain "default" { providers = [provider.first] }
`, Options{Supervisor: supervisor.Options{HealthInterval: 10 * time.Millisecond}})
	ask := func() {
		t.Helper()
		resp := r.post("/v1/chat/completions", chatBody("default", false))
		if resp.status != http.StatusOK || chatText(t, resp.body) != "hi" {
			t.Fatalf("status %d: %s", resp.status, resp.body)
		}
		if trail := resp.header.Get("X-Axon-Trail"); !strings.Contains(trail, "first#1 ok") {
			t.Errorf("trail %q: the answer was not the first attempt's", trail)
		}
	}
	ask()
	if !r.logs.WaitFor("plugin stopped: idle", 30*time.Second) {
		t.Fatal("the idle plugin was not stopped")
	}
	ask()
	if n := strings.Count(r.logs.String(), "plugin started"); n != 2 {
		t.Errorf("%d plugin starts, want 2 (the first request, the one after the stop)", n)
	}
}
