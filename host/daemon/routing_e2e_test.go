package daemon

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/host/routing"
	"github.com/axonhq/axon/host/usage"
)

// Routing, claimed of a whole axon: real provider plugin processes, each
// reaching an httptest upstream of its own through the egress, and the
// front door over them.

// routed is a provider block on the openai plugin for upstream u, with
// extra host-owned attributes.
func routed(name string, u *upstream, extra string) string {
	return `
provider "` + name + `" {
  plugin   = "openai"
  base_url = "` + u.URL + `/v1"
  model    = "` + name + `-model"
  ` + extra + `
}
`
}

// answers is an upstream that answers "from NAME".
func answers(t *testing.T, name string) *upstream {
	return newUpstream(t, openaiText(name+"-model", "from", name))
}

const down503 = `{"error":{"message":"down","type":"server_error"}}`

// ask posts a chat completion to model with header pairs.
func (r *rig) ask(model string, header ...string) response {
	r.t.Helper()
	return r.askBody("/v1/chat/completions", chatBody(model, false), header...)
}

// get fetches path from the front door.
func (r *rig) get(path string) response {
	r.t.Helper()
	resp, err := http.Get(r.door.URL + path)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

func (r *rig) askBody(path, body string, header ...string) response {
	r.t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.door.URL+path, strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// routeLine is the route line of a response's trail.
func routeLine(resp response) string {
	line, _, _ := strings.Cut(resp.header.Get("X-Axon-Trail"), "; ")
	return line
}

func wantAnswer(t *testing.T, resp response, provider string) {
	t.Helper()
	if resp.status != http.StatusOK || resp.header.Get("X-Axon-Provider") != provider {
		t.Fatalf("status %d provider %q, want 200 from %s: %s (trail %s)", resp.status, resp.header.Get("X-Axon-Provider"), provider, resp.body, resp.header.Get("X-Axon-Trail"))
	}
}

// TestRoutingPaidGateOff: with billing off an api-tier provider is never
// sent a request — not first in its chain, not when every other provider
// failed, not pinned — even when its own block says enabled = true.
func TestRoutingPaidGateOff(t *testing.T) {
	gpt, local := answers(t, "gpt"), answers(t, "local")
	r := newRig(t, routed("gpt", gpt, `tier = "api"`+"\n  enabled = true")+routed("local", local, `tier = "local"`)+`
chain "default" {
  providers = [provider.gpt, provider.local]
  retry { attempts = 1 }
}
`, Options{})

	resp := r.ask("default")
	wantAnswer(t, resp, "local")
	if got, want := resp.header.Get("X-Axon-Trail"), "route strategy=ordered order=local gate=off paid=skipped(gpt); local#1 ok"; !strings.HasPrefix(got, want) {
		t.Errorf("trail %s, want it to begin %s", got, want)
	}

	local.script(status(503, nil, down503))
	if resp := r.ask("default"); resp.status != http.StatusServiceUnavailable {
		t.Errorf("every unpaid provider down: status %d, want 503: %s", resp.status, resp.body)
	}
	resp = r.ask("default/gpt")
	if resp.status != http.StatusBadGateway || !strings.Contains(resp.body, "paid gate") || routeLine(resp) != "route pinned order=- paid=skipped(gpt)" {
		t.Errorf("pinned behind the gate: status %d, %s (trail %s)", resp.status, resp.body, resp.header.Get("X-Axon-Trail"))
	}
	models := r.get("/v1/models/default/gpt")
	for _, want := range []string{`"tier":"api"`, `"routable":false`, `"gate":"paid"`, `not routed: paid tier`} {
		if !strings.Contains(models.body, want) {
			t.Errorf("/v1/models/default/gpt lacks %s: %s", want, models.body)
		}
	}
	if models := r.get("/v1/models/default/local"); !strings.Contains(models.body, `"tier":"local","routable":true`) {
		t.Errorf("/v1/models/default/local: %s", models.body)
	}
	if gpt.count() != 0 {
		t.Errorf("the paid upstream was called %d times with billing off", gpt.count())
	}
	if !strings.Contains(r.logs.String(), `trail="route strategy=ordered order=local gate=off paid=skipped(gpt); local#1 ok`) {
		t.Error("the turn log lacks the route line")
	}
}

// TestRoutingPaidGateOn: with billing and the provider's enabled on, a paid
// provider answers only once every unpaid one failed, wherever it is
// listed, and its answer does not move the rotation.
func TestRoutingPaidGateOn(t *testing.T) {
	gpt, a, b := answers(t, "gpt"), answers(t, "a"), answers(t, "b")
	r := newRigAxon(t, "billing { enabled = true }", routed("gpt", gpt, `tier = "api"`+"\n  enabled = true")+routed("a", a, `tier = "sub"`)+routed("b", b, `tier = "local"`)+`
chain "default" {
  providers = [provider.gpt, provider.a, provider.b]
  strategy  = "rotate"
  retry { attempts = 1 }
}
`, "", Options{})

	resp := r.ask("default")
	wantAnswer(t, resp, "a")
	if got := routeLine(resp); got != "route strategy=rotate cursor=0 order=a,b,gpt gate=off paid=last(gpt)" {
		t.Errorf("route %s", got)
	}

	a.script(status(503, nil, down503))
	b.script(status(503, nil, down503))
	resp = r.ask("default")
	wantAnswer(t, resp, "gpt")
	if got, want := resp.header.Get("X-Axon-Trail"), "route strategy=rotate cursor=1 order=b,a,gpt gate=off paid=last(gpt); b#1 fallback transient/503"; !strings.HasPrefix(got, want) {
		t.Errorf("trail %s, want it to begin %s", got, want)
	}

	a.script(openaiText("a-model", "from", "a"))
	b.script(openaiText("b-model", "from", "b"))
	resp = r.ask("default")
	wantAnswer(t, resp, "b")
	if got := routeLine(resp); !strings.Contains(got, "cursor=1 ") {
		t.Errorf("after a paid answer the rotation moved: %s", got)
	}
	if gpt.count() != 1 {
		t.Errorf("the paid upstream was called %d times, want once", gpt.count())
	}
}

// TestRoutingTaskFit: a task hint puts the providers good at it first, in
// either wire format and by header; no fit routes as the chain says.
func TestRoutingTaskFit(t *testing.T) {
	a, b, c := answers(t, "a"), answers(t, "b"), answers(t, "c")
	r := newRig(t, routed("a", a, "")+routed("b", b, `good_at = ["code"]`)+routed("c", c, `good_at = ["code", "chat"]`)+`
chain "default" {
  providers = [provider.a, provider.b, provider.c]
  retry { attempts = 1 }
}
`, Options{})

	wantAnswer(t, r.ask("default"), "a")
	resp := r.ask("default", "x-axon-task", "code")
	wantAnswer(t, resp, "b")
	if got := routeLine(resp); got != "route task=code fit=b,c strategy=ordered order=b,c,a gate=off" {
		t.Errorf("route %s", got)
	}
	wantAnswer(t, r.askBody("/v1/messages", `{"model":"default","max_tokens":16,"metadata":{"task":"chat"},"messages":[{"role":"user","content":"hi"}]}`), "c")
	wantAnswer(t, r.askBody("/v1/chat/completions", `{"model":"default","metadata":{"task":"code"},"messages":[{"role":"user","content":"hi"}]}`), "b")

	resp = r.ask("default", "x-axon-task", "poetry")
	wantAnswer(t, resp, "a")
	if got := routeLine(resp); got != "route task=poetry fit=- strategy=ordered order=a,b,c gate=off" {
		t.Errorf("no fit: route %s", got)
	}

	b.script(status(503, nil, down503))
	resp = r.ask("default", "x-axon-task", "code")
	wantAnswer(t, resp, "c")
	if !strings.Contains(resp.header.Get("X-Axon-Trail"), "; b#1 fallback transient/503") {
		t.Errorf("trail %s", resp.header.Get("X-Axon-Trail"))
	}
}

// TestRoutingRotate: rotate spreads requests evenly, moves only on a
// success, and keeps its cursor in the state directory.
func TestRoutingRotate(t *testing.T) {
	a, b, c := answers(t, "a"), answers(t, "b"), answers(t, "c")
	stateDir := t.TempDir()
	r := newRigIn(t, stateDir, "", routed("a", a, "")+routed("b", b, "")+routed("c", c, "")+`
chain "default" {
  providers = [provider.a, provider.b, provider.c]
  strategy  = "rotate"
  retry { attempts = 1 }
}
`, "", Options{})

	var got []string
	for range 6 {
		resp := r.ask("default")
		got = append(got, resp.header.Get("X-Axon-Provider"))
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "a", "b", "c"}, got); diff != "" {
		t.Errorf("answered by (-want +got):\n%s", diff)
	}
	if a.count() != 2 || b.count() != 2 || c.count() != 2 {
		t.Errorf("calls a=%d b=%d c=%d, want 2 each", a.count(), b.count(), c.count())
	}
	// A failure of every provider does not move the start.
	for _, u := range []*upstream{a, b, c} {
		u.script(status(503, nil, down503))
	}
	if resp := r.ask("default"); resp.status != http.StatusServiceUnavailable || routeLine(resp) != "route strategy=rotate cursor=0 order=a,b,c gate=off" {
		t.Errorf("all down: %d %s", resp.status, resp.header.Get("X-Axon-Trail"))
	}
	waitCursor(t, stateDir, "default", `{"cursor":6}`)
}

// waitCursor waits until chain's cursor file holds want: it is written off
// the request path, a moment after the answer.
func waitCursor(t *testing.T, stateDir, chainName, want string) {
	t.Helper()
	path := routing.CursorPath(stateDir, chainName)
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.TrimSpace(string(b)) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("cursor file %s holds %q, want %s", path, b, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// delayed waits d before s answers: a provider slow to its first token.
func delayed(d time.Duration, s step) step {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
		s(w, r)
	}
}

// TestRoutingLowestLatency: lowest_latency tries each untried provider
// once, then stays on the faster one. Each first sample includes its
// plugin's cold start, so slow's delay must outlast any start on a loaded
// CI machine: at 400 ms a slow start of fast once measured fast slower.
func TestRoutingLowestLatency(t *testing.T) {
	slow := newUpstream(t, delayed(1500*time.Millisecond, openaiText("slow-model", "from", "slow")))
	fast := answers(t, "fast")
	r := newRig(t, routed("slow", slow, "")+routed("fast", fast, "")+`
chain "default" {
  providers = [provider.slow, provider.fast]
  strategy  = "lowest_latency"
}
`, Options{})

	var got []string
	var last response
	for range 6 {
		last = r.ask("default")
		got = append(got, last.header.Get("X-Axon-Provider"))
	}
	if diff := cmp.Diff([]string{"slow", "fast", "fast", "fast", "fast", "fast"}, got); diff != "" {
		t.Errorf("answered by (-want +got):\n%s", diff)
	}
	if line := routeLine(last); line != "route strategy=lowest_latency order=fast,slow gate=off" {
		t.Errorf("route %s", line)
	}
}

// TestRoutingLowestCost: lowest_cost tries the provider whose price for
// the request's expected tokens is lowest, an unpriced one after every
// priced one.
func TestRoutingLowestCost(t *testing.T) {
	pricey, cheap, unpriced := answers(t, "pricey"), answers(t, "cheap"), answers(t, "unpriced")
	r := newRig(t, routed("unpriced", unpriced, "")+
		routed("pricey", pricey, "pricing {\n    input_per_mtok = 3\n    output_per_mtok = 15\n  }")+
		routed("cheap", cheap, "pricing {\n    input_per_mtok = 0.1\n    output_per_mtok = 0.4\n  }")+`
chain "default" {
  providers = [provider.unpriced, provider.pricey, provider.cheap]
  strategy  = "lowest_cost"
  retry { attempts = 1 }
}
`, Options{})

	resp := r.ask("default")
	wantAnswer(t, resp, "cheap")
	// "Say hello." is 10 bytes: 3 tokens, and 4 for its message; no
	// max_tokens: 1024 out.
	if got := routeLine(resp); got != "route strategy=lowest_cost tokens=7+1024 order=cheap,pricey,unpriced gate=off" {
		t.Errorf("route %s", got)
	}
	cheap.script(status(503, nil, down503))
	wantAnswer(t, r.ask("default"), "pricey")
}

// TestRoutingClassifier: the classifier gate sends a request its local
// model rates trivial to the local tier, and everything else — a complex
// rating, garbage, an error, a timeout, a request with tools — to the
// chain as it stands.
func TestRoutingClassifier(t *testing.T) {
	remote, local := answers(t, "remote"), answers(t, "local")
	rater := newUpstream(t, openaiText("rater-model", "trivial"))
	r := newRig(t, routed("remote", remote, `tier = "sub"`)+routed("local", local, `tier = "local"`)+routed("rater", rater, `tier = "local"`)+`
chain "default" {
  providers = [provider.remote, provider.local]
  retry { attempts = 1 }
  classifier {
    provider = provider.rater
    timeout  = "700ms"
  }
}
`, Options{})
	// The classifier's timeout covers its plugin's start when it is not
	// running; on a loaded machine a cold start alone can pass 700 ms, so
	// start it first: the cases measure the gate, not the start.
	in, err := r.broker.Supervisor().Instance("rater")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}

	tools := `{"model":"default","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"clock","parameters":{"type":"object"}}}]}`
	for _, tc := range []struct {
		name     string
		rating   step
		body     string
		provider string
		gate     string
		asked    bool
	}{
		{"trivial", openaiText("rater-model", "trivial"), "", "local", "trivial", true},
		{"complex", openaiText("rater-model", "Complex."), "", "remote", "complex", true},
		{"garbage", openaiText("rater-model", "It", "depends"), "", "remote", "failed(garbage)", true},
		{"error", status(500, nil, `{"error":{"message":"boom","type":"server_error"}}`), "", "remote", "failed(error)", true},
		{"timeout", hang, "", "remote", "failed(timeout)", true},
		{"tools", openaiText("rater-model", "trivial"), tools, "remote", "skipped(tools)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rater.script(tc.rating)
			body := tc.body
			if body == "" {
				body = chatBody("default", false)
			}
			resp := r.askBody("/v1/chat/completions", body)
			wantAnswer(t, resp, tc.provider)
			if got := routeLine(resp); !strings.HasSuffix(got, " gate="+tc.gate) {
				t.Errorf("route %s, want gate=%s", got, tc.gate)
			}
			if asked := rater.count() > 0; asked != tc.asked {
				t.Errorf("classifier asked = %v", asked)
			}
		})
	}
}

// TestRoutingBudget: once a provider's recorded spend this month reaches
// its budget it is skipped as a routing decision: spend recorded before
// axon started, and the spend of axon's own answers once written (the
// spend is read every few seconds); last month's spend does not count.
func TestRoutingBudget(t *testing.T) {
	local, gpt, claude := newUpstream(t, status(503, nil, down503)), answers(t, "gpt"), answers(t, "claude")
	stateDir := t.TempDir()
	seed(t, stateDir,
		usage.Fact{At: time.Now(), Source: usage.SourceOpenAI, Chain: "default", Provider: "gpt", Outcome: usage.OutcomeOK, CostUSD: ptrTo(25.0), Basis: usage.BasisPricing},
		usage.Fact{At: usage.MonthStart(time.Now()).Add(-time.Hour), Source: usage.SourceOpenAI, Chain: "default", Provider: "claude", Outcome: usage.OutcomeOK, CostUSD: ptrTo(500.0), Basis: usage.BasisPricing},
	)
	// Each answer of claude costs $7: 7 prompt tokens at $1 each.
	r := newRigIn(t, stateDir, "billing { enabled = true }", routed("local", local, `tier = "local"`)+
		routed("gpt", gpt, "tier = \"api\"\n  enabled = true\n  budget { usd_per_month = 20 }")+
		routed("claude", claude, "tier = \"api\"\n  enabled = true\n  budget { usd_per_month = 20 }\n  pricing {\n    input_per_mtok = 1000000\n    output_per_mtok = 0\n  }")+`
chain "default" {
  providers = [provider.local, provider.gpt, provider.claude]
  retry { attempts = 1 }
}
`, "", Options{})

	resp := r.ask("default")
	wantAnswer(t, resp, "claude")
	if got := routeLine(resp); got != "route strategy=ordered order=local,claude gate=off paid=last(claude) budget_exhausted=gpt" {
		t.Errorf("route %s", got)
	}
	deadline := time.Now().Add(30 * time.Second)
	for resp.status == http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatalf("claude answered %d times ($7 each) and is still routed: %s", claude.count(), resp.header.Get("X-Axon-Trail"))
		}
		time.Sleep(100 * time.Millisecond)
		resp = r.ask("default")
	}
	if claude.count() < 3 || gpt.count() != 0 {
		t.Errorf("claude answered %d times, gpt %d; want at least 3 ($21 of a $20 budget) and none", claude.count(), gpt.count())
	}
	if resp.status != http.StatusServiceUnavailable || !strings.Contains(routeLine(resp), "order=local ") || !strings.Contains(routeLine(resp), "budget_exhausted=gpt,claude") {
		t.Errorf("over budget: status %d %s (trail %s)", resp.status, resp.body, resp.header.Get("X-Axon-Trail"))
	}
	// With the unpaid provider gone too, the client is told it is a quota.
	resp = r.ask("default/claude")
	if resp.status != http.StatusTooManyRequests || !strings.Contains(resp.body, "insufficient_quota") || !strings.Contains(resp.body, "monthly budget") {
		t.Errorf("pinned over budget: status %d %s", resp.status, resp.body)
	}
}

func ptrTo[T any](v T) *T { return &v }

// seed writes facts into the usage store of stateDir, as an earlier axon
// would have.
func seed(t *testing.T, stateDir string, facts ...usage.Fact) {
	t.Helper()
	ctx := context.Background()
	store, err := usage.Open(ctx, usage.Path(stateDir))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.Write(ctx, facts); err != nil {
		t.Fatal(err)
	}
}
