package routing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/usage"
	"github.com/axonhq/axon/sdk"
)

// The roster most tests route over: a local model, a subscription good at
// code, a second subscription, and a metered API.
var (
	local  = Hop{Name: "local", Tier: config.TierLocal}
	glm    = Hop{Name: "glm", Tier: config.TierSub, GoodAt: []string{"code", "chat"}, Model: "glm-4.6"}
	claude = Hop{Name: "claude", Tier: config.TierSub}
	gpt    = Hop{Name: "gpt", Tier: config.TierAPI, GoodAt: []string{"code"}, Model: "gpt-4o"}
)

// gated is h behind gate.
func gated(h Hop, gate string) Hop { h.Gate = gate; return h }

func budgeted(h Hop, usd float64) Hop { h.Budget = usd; return h }

// routing is the chain.Routing of hops, asking for task.
func routing(task string, hops ...Hop) chain.Routing {
	q := chain.Routing{Task: task, Request: &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "hello"}}}}}}
	for _, h := range hops {
		q.Hops = append(q.Hops, chain.Hop{Name: h.Name})
	}
	return q
}

// ordered names the hops of rt's order.
func ordered(q chain.Routing, rt chain.Route) string {
	var ns []string
	for _, i := range rt.Order {
		ns = append(ns, q.Hops[i].Name)
	}
	return strings.Join(ns, ",")
}

func newRouter(t *testing.T, strategy config.Strategy, d Deps, hops ...Hop) *Router {
	t.Helper()
	r := New(Policy{Chain: "default", Strategy: strategy, Hops: hops}, d)
	t.Cleanup(r.Close)
	return r
}

// TestGatesAndTaskFit: the paid gate, enabled = false and task fit, over
// the ordered strategy.
func TestGatesAndTaskFit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		hops      []Hop
		task      string
		wantOrder string
		wantLine  string
	}{
		{"paid gate off: never routed", []Hop{gated(gpt, config.GatePaid), glm, local}, "",
			"glm,local", "route strategy=ordered order=glm,local gate=off paid=skipped(gpt)"},
		{"paid gate on: the last resort, wherever it is listed", []Hop{gpt, glm, local}, "",
			"glm,local,gpt", "route strategy=ordered order=glm,local,gpt gate=off paid=last(gpt)"},
		{"disabled", []Hop{gated(glm, config.GateDisabled), local}, "",
			"local", "route strategy=ordered order=local gate=off disabled=glm"},
		{"task fit first, the rest in order", []Hop{local, claude, glm}, "code",
			"glm,local,claude", "route task=code fit=glm strategy=ordered order=glm,local,claude gate=off"},
		{"task fit, case and space aside", []Hop{local, glm}, " Code ",
			"glm,local", "route task=code fit=glm strategy=ordered order=glm,local gate=off"},
		{"no fit is no error", []Hop{local, claude}, "poetry",
			"local,claude", "route task=poetry fit=- strategy=ordered order=local,claude gate=off"},
		{"a paid fit stays last", []Hop{gpt, local, claude}, "code",
			"local,claude,gpt", "route task=code fit=gpt strategy=ordered order=local,claude,gpt gate=off paid=last(gpt)"},
		{"a task that is no token is none", []Hop{local, glm}, "code; drop",
			"local,glm", "route strategy=ordered order=local,glm gate=off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRouter(t, config.StrategyOrdered, Deps{}, tc.hops...)
			q := routing(tc.task, tc.hops...)
			rt := r.Route(context.Background(), q)
			if got := ordered(q, rt); got != tc.wantOrder {
				t.Errorf("order %s, want %s", got, tc.wantOrder)
			}
			if rt.Line != tc.wantLine {
				t.Errorf("line\n got %s\nwant %s", rt.Line, tc.wantLine)
			}
		})
	}
}

// TestNoRoute: when the gates leave nothing, the Route says why, with a
// class a client can act on.
func TestNoRoute(t *testing.T) {
	t.Parallel()
	spend := &fakeSpend{usd: map[string]float64{"glm": 25}}
	for _, tc := range []struct {
		name  string
		hops  []Hop
		deps  Deps
		class sdk.Class
		code  string
	}{
		{"paid gate", []Hop{gated(gpt, config.GatePaid)}, Deps{}, sdk.ClassPermanent, CodeNoRoute},
		{"disabled", []Hop{gated(local, config.GateDisabled)}, Deps{}, sdk.ClassPermanent, CodeNoRoute},
		{"budget", []Hop{gated(gpt, config.GatePaid), budgeted(glm, 20)}, Deps{Spend: spend}, sdk.ClassQuotaExhausted, CodeBudgetExhausted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRouter(t, config.StrategyOrdered, tc.deps, tc.hops...)
			rt := r.Route(context.Background(), routing("", tc.hops...))
			var se *sdk.Error
			if len(rt.Order) != 0 || !errors.As(rt.Empty, &se) || se.Class != tc.class || se.Code != tc.code {
				t.Fatalf("route %+v, want no order and a %s/%s error", rt, tc.class, tc.code)
			}
			if !strings.Contains(rt.Line, "order=-") {
				t.Errorf("line %s", rt.Line)
			}
		})
	}
}

// succeed is the Result of a Run answered by provider.
func succeed(provider string) *chain.Result {
	return &chain.Result{Provider: provider, Trail: chain.Trail{{Provider: provider, Attempt: 1, Outcome: chain.OutcomeOK}}}
}

// TestRotate: the start moves one unpaid provider along per success, never
// on a failure or a paid answer, and the cursor is read back by a new
// Router (a restart).
func TestRotate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hops := []Hop{glm, claude, local, gpt}
	r := New(Policy{Chain: "default", Strategy: config.StrategyRotate, Hops: hops}, Deps{StateDir: dir})
	q := routing("", hops...)
	var got []string
	for _, outcome := range []string{"ok", "fail", "ok", "paid", "ok", "ok"} {
		rt := r.Route(context.Background(), q)
		got = append(got, ordered(q, rt))
		switch outcome {
		case "ok":
			r.Done(rt, succeed(q.Hops[rt.Order[0]].Name), nil)
		case "fail":
			r.Done(rt, &chain.Result{}, errors.New("exhausted"))
		case "paid":
			r.Done(rt, succeed("gpt"), nil)
		}
	}
	want := []string{
		"glm,claude,local,gpt",
		"claude,local,glm,gpt", // after a success
		"claude,local,glm,gpt", // a failure does not move it
		"local,glm,claude,gpt",
		"local,glm,claude,gpt", // nor does a paid answer
		"glm,claude,local,gpt", // round again
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("orders (-want +got):\n%s", diff)
	}
	r.Close()
	b, err := os.ReadFile(CursorPath(dir, "default"))
	if err != nil || strings.TrimSpace(string(b)) != `{"cursor":4}` {
		t.Fatalf("cursor file %q, %v", b, err)
	}
	again := newRouter(t, config.StrategyRotate, Deps{StateDir: dir}, hops...)
	rt := again.Route(context.Background(), q)
	if got := ordered(q, rt); got != "claude,local,glm,gpt" || !strings.Contains(rt.Line, "strategy=rotate cursor=1 ") {
		t.Errorf("after a restart: order %s, line %s; want it to start at claude (4 successes mod 3)", got, rt.Line)
	}
}

// TestRotateCursorFile: a torn or foreign cursor file starts the rotation
// over (with a warning), never stops routing; writes leave no temporary
// files behind.
func TestRotateCursorFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := CursorPath(dir, "default")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"cur`), 0o600); err != nil {
		t.Fatal(err)
	}
	hops := []Hop{glm, local}
	r := New(Policy{Chain: "default", Strategy: config.StrategyRotate, Hops: hops}, Deps{StateDir: dir})
	q := routing("", hops...)
	rt := r.Route(context.Background(), q)
	if got := ordered(q, rt); got != "glm,local" {
		t.Errorf("order %s", got)
	}
	r.Done(rt, succeed("glm"), nil)
	r.Close()
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("routing directory holds %d entries, want only the cursor", len(entries))
	}
	if b, _ := os.ReadFile(path); strings.TrimSpace(string(b)) != `{"cursor":1}` {
		t.Errorf("cursor file %q", b)
	}
}

// TestLowestLatency: untried providers are explored first, then the
// fastest moving average leads; a failure before the first token costs
// the provider its first-token bound; a stale measure is explored again.
func TestLowestLatency(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	hops := []Hop{glm, claude, local}
	r := newRouter(t, config.StrategyLowestLatency, Deps{Now: clock}, hops...)
	q := routing("", hops...)
	q.Hops[1].FirstToken = 10 * time.Second
	answer := func(rt chain.Route, provider string, ft time.Duration) {
		r.Done(rt, &chain.Result{Provider: provider, Trail: chain.Trail{{Provider: provider, Attempt: 1, Outcome: chain.OutcomeOK, FirstToken: ft}}}, nil)
	}
	step := func(want string) chain.Route {
		t.Helper()
		rt := r.Route(context.Background(), q)
		if got := ordered(q, rt); got != want {
			t.Errorf("order %s, want %s (%s)", got, want, rt.Line)
		}
		return rt
	}
	answer(step("glm,claude,local"), "glm", 900*time.Millisecond)
	answer(step("claude,local,glm"), "claude", 200*time.Millisecond)
	answer(step("local,claude,glm"), "local", 400*time.Millisecond)
	rt := step("claude,local,glm")
	// claude fails before its first token; local answers.
	r.Done(rt, &chain.Result{Provider: "local", Trail: chain.Trail{
		{Provider: "claude", Attempt: 1, Outcome: chain.OutcomeFallback, Class: sdk.ClassTransient, Code: chain.CodeFirstTokenTimeout, Latency: 10 * time.Second},
		{Provider: "local", Attempt: 1, Outcome: chain.OutcomeOK, FirstToken: 400 * time.Millisecond},
	}}, nil)
	step("local,glm,claude") // claude: 0.2s + 0.3·(10s − 0.2s) = 3.14s
	// A cancelled attempt tells nothing.
	r.Done(rt, &chain.Result{Trail: chain.Trail{{Provider: "local", Attempt: 1, Outcome: chain.OutcomeStop, Code: chain.CodeCanceled}}}, context.Canceled)
	step("local,glm,claude")
	now = now.Add(latencyStale + time.Second)
	step("glm,claude,local") // every measure is stale: all explored again, in order
}

// fakePrices prices per provider, USD per million input and output tokens.
type fakePrices map[string][2]float64

func (f fakePrices) Lookup(provider, _ string) (usage.Price, usage.Basis) {
	p, ok := f[provider]
	if !ok {
		return usage.Price{}, usage.BasisUnknown
	}
	return usage.Price{Input: &p[0], Output: &p[1]}, usage.BasisPricing
}

// TestLowestCost: the cheapest expected cost first, an unknown price after
// every known one, paid providers last among themselves by cost.
func TestLowestCost(t *testing.T) {
	t.Parallel()
	hops := []Hop{glm, claude, local, gpt, {Name: "opus", Tier: config.TierAPI}}
	prices := fakePrices{"glm": {0.6, 2.2}, "claude": {3, 15}, "local": {0, 0}, "gpt": {2.5, 10}, "opus": {5, 25}}
	r := newRouter(t, config.StrategyLowestCost, Deps{Prices: prices}, hops...)
	q := routing("", hops...)
	q.Request.MaxTokens = 500
	rt := r.Route(context.Background(), q)
	if got := ordered(q, rt); got != "local,glm,claude,gpt,opus" {
		t.Errorf("order %s", got)
	}
	if !strings.Contains(rt.Line, "strategy=lowest_cost tokens=6+500 ") {
		t.Errorf("line %s", rt.Line)
	}
	delete(prices, "local")
	if got := ordered(q, r.Route(context.Background(), q)); got != "glm,claude,local,gpt,opus" {
		t.Errorf("an unknown price: order %s, want it after the priced ones", got)
	}
}

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	req := &sdk.Request{
		System:    sdk.SystemPrompt(strings.Repeat("s", 40)),
		MaxTokens: 0,
		Tools:     []sdk.ToolSpec{{Name: "clock", Description: "the time", InputSchema: []byte(`{"type":"object"}`)}},
		Messages: []sdk.Message{
			{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: strings.Repeat("u", 400)}, sdk.Image{MediaType: "image/png", Data: []byte{1}}}},
			{Role: sdk.RoleAssistant, Parts: []sdk.Part{sdk.ToolCall{ID: "1", Name: "clock", Input: []byte(`{}`)}}},
			{Role: sdk.RoleTool, Parts: []sdk.Part{sdk.ToolResult{CallID: "1", Content: []sdk.Part{sdk.Text{Text: "12:00"}}}}},
		},
	}
	in, out := EstimateTokens(req)
	// 40 + (5+8+17) + 400 + (5+2) + 5 = 482 bytes → 121 tokens, an image,
	// three messages.
	if in != 121+ImageTokens+3*MessageTokens || out != DefaultOutputTokens {
		t.Errorf("estimate %d in, %d out", in, out)
	}
	req.MaxTokens = 64
	if _, out := EstimateTokens(req); out != 64 {
		t.Errorf("max_tokens 64: %d out", out)
	}
}

// fakeSpend is a usage store's spend per provider; err fails every read.
type fakeSpend struct {
	mu    sync.Mutex
	usd   map[string]float64
	err   error
	reads int
	since []time.Time
}

func (f *fakeSpend) SpendSince(_ context.Context, provider string, since time.Time) (float64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	f.since = append(f.since, since)
	return f.usd[provider], f.err
}

func (f *fakeSpend) set(provider string, usd float64, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.usd[provider], f.err = usd, err
}

// TestBudgets: a provider whose month's spend reached its budget is
// skipped as a routing decision; the spend is read at most every spendTTL
// and from the month's first instant; a store that cannot be read leaves
// the provider out unless an earlier reading this month says it may
// spend.
func TestBudgets(t *testing.T) {
	t.Parallel()
	loc := time.FixedZone("here", 3600)
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, loc)
	spend := &fakeSpend{usd: map[string]float64{"gpt": 19.99}}
	hops := []Hop{budgeted(gpt, 20), local}
	r := newRouter(t, config.StrategyOrdered, Deps{Spend: spend, Now: func() time.Time { return now }}, hops...)
	q := routing("", hops...)
	route := func() chain.Route { return r.Route(context.Background(), q) }

	if rt := route(); ordered(q, rt) != "local,gpt" {
		t.Errorf("under budget: %s", rt.Line)
	}
	spend.set("gpt", 20, nil)
	if rt := route(); ordered(q, rt) != "local,gpt" {
		t.Errorf("within the TTL the reading stands: %s", rt.Line)
	}
	now = now.Add(spendTTL)
	rt := route()
	if ordered(q, rt) != "local" || !strings.Contains(rt.Line, "budget_exhausted=gpt") {
		t.Errorf("budget reached: %s", rt.Line)
	}
	if want := time.Date(2026, 12, 1, 0, 0, 0, 0, loc); !spend.since[0].Equal(want) || spend.reads != 2 {
		t.Errorf("reads %d since %v, want 2 since %v", spend.reads, spend.since, want)
	}
	// The store fails: the last reading of the month stands.
	spend.set("gpt", 0, errors.New("database is locked"))
	now = now.Add(spendTTL)
	if rt := route(); ordered(q, rt) != "local" {
		t.Errorf("a failed read keeps the last reading: %s", rt.Line)
	}
	// A new month: nothing known yet, and the store still fails.
	now = time.Date(2027, 1, 1, 0, 0, 1, 0, loc)
	if rt := route(); ordered(q, rt) != "local" || !strings.Contains(rt.Line, "budget_unknown=gpt") {
		t.Errorf("no reading this month: %s", rt.Line)
	}
	spend.set("gpt", 0, nil)
	now = now.Add(spendTTL)
	if rt := route(); ordered(q, rt) != "local,gpt" {
		t.Errorf("a new month, nothing spent: %s", rt.Line)
	}
	// Without a store at all a budget cannot be kept.
	nostore := newRouter(t, config.StrategyOrdered, Deps{}, hops...)
	if rt := nostore.Route(context.Background(), q); ordered(q, rt) != "local" || !strings.Contains(rt.Line, "budget_unknown=gpt") {
		t.Errorf("no store: %s", rt.Line)
	}
}

// fakeRater answers a rating with reply, or fails with err, or waits for
// the end of its context when block is set.
type fakeRater struct {
	reply string
	err   error
	block bool
	got   []*sdk.Request
}

func (f *fakeRater) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	f.got = append(f.got, req)
	if f.block {
		<-ctx.Done()
		return &sdk.Error{Class: sdk.ClassTransient, Code: "timeout", Message: "deadline"}
	}
	if f.err != nil {
		return f.err
	}
	if err := out.Send(ctx, sdk.Event{Type: sdk.EventTextDelta, Text: f.reply}); err != nil {
		return err
	}
	return out.Send(ctx, sdk.Event{Type: sdk.EventFinish, Finish: sdk.FinishStop})
}

// TestClassifierGate: a trivial rating puts the local tier first; every
// other outcome, failures included, leaves the chain's order.
func TestClassifierGate(t *testing.T) {
	t.Parallel()
	hops := []Hop{glm, claude, local}
	for _, tc := range []struct {
		name      string
		rater     *fakeRater
		tools     bool
		wantOrder string
		wantGate  string
		wantAsked bool
	}{
		{"trivial", &fakeRater{reply: "trivial"}, false, "local,glm,claude", "trivial", true},
		{"trivial, dressed up", &fakeRater{reply: " \"Trivial.\"\n"}, false, "local,glm,claude", "trivial", true},
		{"complex", &fakeRater{reply: "complex"}, false, "glm,claude,local", "complex", true},
		{"garbage", &fakeRater{reply: "I think this is easy"}, false, "glm,claude,local", "failed(garbage)", true},
		{"empty reply", &fakeRater{reply: ""}, false, "glm,claude,local", "failed(garbage)", true},
		{"error", &fakeRater{err: sdk.ErrPluginExited}, false, "glm,claude,local", "failed(error)", true},
		{"timeout", &fakeRater{block: true}, false, "glm,claude,local", "failed(timeout)", true},
		// The deadline travels to the plugin, whose own timer may fire and
		// answer before the host's.
		{"the plugin's deadline first", &fakeRater{err: fmt.Errorf("egress: %w", sdk.ErrTimeout)}, false, "glm,claude,local", "failed(timeout)", true},
		{"tools are never trivial", &fakeRater{reply: "trivial"}, true, "glm,claude,local", "skipped(tools)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := New(Policy{Chain: "default", Strategy: config.StrategyOrdered, Hops: hops,
				Classifier: &Classifier{Provider: "local", Gen: tc.rater, Model: "qwen", Timeout: time.Millisecond}}, Deps{})
			q := routing("", hops...)
			if tc.tools {
				q.Request.Tools = []sdk.ToolSpec{{Name: "clock"}}
			}
			rt := r.Route(context.Background(), q)
			if got := ordered(q, rt); got != tc.wantOrder || !strings.Contains(rt.Line, " gate="+tc.wantGate) {
				t.Errorf("order %s line %s; want %s gate=%s", got, rt.Line, tc.wantOrder, tc.wantGate)
			}
			if asked := len(tc.rater.got) > 0; asked != tc.wantAsked {
				t.Fatalf("asked = %v", asked)
			}
			if tc.wantAsked {
				req := tc.rater.got[0]
				if req.Model != "qwen" || sdk.SystemText(req.System) != classifierPrompt || !strings.HasSuffix(sdk.TextOf(req.Messages[0].Parts), "hello") {
					t.Errorf("rating request %+v", req)
				}
			}
		})
	}
}

// TestPinned: a pin keeps the gates and budgets, nothing else.
func TestPinned(t *testing.T) {
	t.Parallel()
	r := newRouter(t, config.StrategyRotate, Deps{}, glm, gated(gpt, config.GatePaid))
	p := r.Pinned()
	q := routing("code", gated(gpt, config.GatePaid))
	rt := p.Route(context.Background(), q)
	if len(rt.Order) != 0 || rt.Line != "route pinned task=code fit=- order=- paid=skipped(gpt)" || rt.Empty == nil {
		t.Errorf("a pinned paid provider: %+v", rt)
	}
	q = routing("", glm)
	rt = p.Route(context.Background(), q)
	p.Done(rt, succeed("glm"), nil)
	if rt.Line != "route pinned order=glm" || r.cursor.get() != 0 {
		t.Errorf("a pin: line %s, cursor %d", rt.Line, r.cursor.get())
	}
}

// TestNeeded: a chain with nothing to decide gets no Router.
func TestNeeded(t *testing.T) {
	t.Parallel()
	plain := Policy{Strategy: config.StrategyOrdered, Hops: []Hop{{Name: "a"}, {Name: "b", Tier: config.TierSub}}}
	if plain.Needed() {
		t.Error("a plain ordered chain needs routing")
	}
	for name, p := range map[string]Policy{
		"rotate":     {Strategy: config.StrategyRotate, Hops: plain.Hops},
		"api tier":   {Strategy: config.StrategyOrdered, Hops: []Hop{gpt}},
		"disabled":   {Strategy: config.StrategyOrdered, Hops: []Hop{gated(local, config.GateDisabled)}},
		"budget":     {Strategy: config.StrategyOrdered, Hops: []Hop{budgeted(local, 1)}},
		"good_at":    {Strategy: config.StrategyOrdered, Hops: []Hop{glm}},
		"classifier": {Strategy: config.StrategyOrdered, Hops: plain.Hops, Classifier: &Classifier{}},
	} {
		if !p.Needed() {
			t.Errorf("%s: not needed", name)
		}
	}
}
