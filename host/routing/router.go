package routing

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/usage"
	"github.com/axonhq/axon/sdk"
)

// Hop is what routing knows of one provider of a chain.
type Hop struct {
	Name   string
	Tier   config.Tier
	Gate   string   // config.Gate: config.GateDisabled, config.GatePaid, or ""
	GoodAt []string // the tasks it is good at, lower case
	Model  string   // the configured model, for its price
	Budget float64  // USD per calendar month; 0: no budget
}

// paid reports a provider billed per token: it is tried only after every
// unpaid one, and its answer never moves a rotation.
func (h Hop) paid() bool { return h.Tier == config.TierAPI }

func (h Hop) fits(task string) bool { return task != "" && slices.Contains(h.GoodAt, task) }

// Policy is one chain's routing, as its configuration says.
type Policy struct {
	Chain      string
	Strategy   config.Strategy
	Hops       []Hop       // in the chain's order
	Classifier *Classifier // nil: no classifier gate
}

// PolicyFor reads chain c's routing from cfg. A classifier, when c has one
// and its provider may answer, still needs its Generator.
func PolicyFor(cfg *config.Config, c *config.Chain) Policy {
	p := Policy{Chain: c.Name, Strategy: c.Strategy}
	for _, name := range c.Providers {
		pr := cfg.Provider(name)
		if pr == nil {
			continue
		}
		h := Hop{Name: name, Tier: pr.Tier, Gate: cfg.Gate(pr), Model: pr.Model()}
		for _, t := range pr.GoodAt {
			h.GoodAt = append(h.GoodAt, strings.ToLower(strings.TrimSpace(t)))
		}
		if pr.Budget != nil {
			h.Budget = pr.Budget.USDPerMonth
		}
		p.Hops = append(p.Hops, h)
	}
	if cl := c.Classifier; cl != nil {
		if pr := cfg.Provider(cl.Provider); pr != nil && cfg.Gate(pr) == "" {
			p.Classifier = &Classifier{Provider: cl.Provider, Model: pr.Model(), Timeout: cl.Timeout}
		}
	}
	return p
}

// Needed reports whether p has anything to decide: a strategy other than
// ordered, a classifier, a provider a gate may leave out or put last (tier
// api, enabled = false, a budget), or one with good_at for a task to fit.
// A chain without any of these is best left without a Router: its trail
// then has no route line.
func (p Policy) Needed() bool {
	if p.Strategy != config.StrategyOrdered && p.Strategy != "" || p.Classifier != nil {
		return true
	}
	return slices.ContainsFunc(p.Hops, func(h Hop) bool {
		return h.Gate != "" || h.paid() || h.Budget > 0 || len(h.GoodAt) > 0
	})
}

// Pricer prices a provider's tokens; *usage.Prices is the one axon uses.
type Pricer interface {
	Lookup(provider, model string) (usage.Price, usage.Basis)
}

// Spend is what a provider's usage facts cost since a time; *usage.Store
// is the one axon uses.
type Spend interface {
	SpendSince(ctx context.Context, provider string, since time.Time) (float64, error)
}

var (
	_ Pricer = (*usage.Prices)(nil)
	_ Spend  = (*usage.Store)(nil)
)

// Deps are what a Router measures and keeps with. Each may be left out.
type Deps struct {
	// StateDir holds rotate's cursor, STATE_DIR/routing/CHAIN.cursor; ""
	// keeps it in memory only.
	StateDir string
	Prices   Pricer // lowest_cost; nil: every price is unknown
	Spend    Spend  // budgets; nil: a budgeted provider is left out (budget_unknown)
	Now      func() time.Time
	Logger   hclog.Logger
}

// Router is one chain's routing. It is safe for concurrent Runs.
type Router struct {
	p       Policy
	now     func() time.Time
	logger  hclog.Logger
	byName  map[string]int
	prices  Pricer
	cursor  *cursor    // rotate only
	lat     *latencies // lowest_latency only
	budgets *budgets
}

var _ chain.Router = (*Router)(nil)

// CursorPath is where the rotation cursor of chain lives under stateDir.
func CursorPath(stateDir, chainName string) string {
	return filepath.Join(stateDir, "routing", chainName+".cursor")
}

// New returns the Router of policy p. A rotating chain reads its cursor
// here; one that cannot be read starts at the first provider, with a
// warning. Close it after the last Run.
func New(p Policy, d Deps) *Router {
	r := &Router{p: p, now: d.Now, logger: d.Logger, byName: map[string]int{}, prices: d.Prices}
	if r.now == nil {
		r.now = time.Now
	}
	if r.logger == nil {
		r.logger = hclog.NewNullLogger()
	}
	r.logger = r.logger.Named("routing").With("chain", p.Chain)
	for i, h := range p.Hops {
		r.byName[h.Name] = i
	}
	switch p.Strategy {
	case config.StrategyRotate:
		path := ""
		if d.StateDir != "" {
			path = CursorPath(d.StateDir, p.Chain)
		}
		r.cursor = openCursor(path, r.logger)
	case config.StrategyLowestLatency:
		r.lat = newLatencies()
	}
	r.budgets = newBudgets(d.Spend, r.logger)
	return r
}

// Close writes the rotation cursor if an advance is not on disk yet.
func (r *Router) Close() {
	if r.cursor != nil {
		r.cursor.close()
	}
}

// Route implements chain.Router.
func (r *Router) Route(ctx context.Context, q chain.Routing) chain.Route {
	return r.route(ctx, q, false)
}

// Done implements chain.Router: an unpaid success moves a rotation on, and
// each attempt's first-token latency is measured.
func (r *Router) Done(rt chain.Route, res *chain.Result, err error) {
	n, _ := rt.Note.(*note)
	if n == nil {
		return
	}
	if n.rotating && err == nil && res.Provider != "" && !slices.Contains(n.paid, res.Provider) {
		r.cursor.advance()
	}
	if n.measuring {
		now := r.now()
		for _, a := range res.Trail {
			if d, ok := latencySample(a, n.bound(a.Provider)); ok {
				r.lat.sample(a.Provider, d, now)
			}
		}
	}
}

// Pinned is the Router of a pin of this chain (CHAIN/PROVIDER): the gates
// and budgets still hold, nothing else applies, and nothing is measured.
func (r *Router) Pinned() chain.Router { return pinned{r} }

type pinned struct{ r *Router }

func (p pinned) Route(ctx context.Context, q chain.Routing) chain.Route {
	return p.r.route(ctx, q, true)
}

func (pinned) Done(chain.Route, *chain.Result, error) {}

// note is a Route's record of the decision, for Done.
type note struct {
	paid      []string // the paid providers in the order
	rotating  bool
	measuring bool
	names     []string        // every hop, as routed
	bounds    []time.Duration // their first-token bounds
}

func (n *note) bound(name string) time.Duration {
	if i := slices.Index(n.names, name); i >= 0 {
		return n.bounds[i]
	}
	return 0
}

func (r *Router) hop(h chain.Hop) Hop {
	if i, ok := r.byName[h.Name]; ok {
		return r.p.Hops[i]
	}
	return Hop{Name: h.Name}
}

// route decides: gates, then the strategy, the classifier and the task
// fit over the unpaid providers, and the paid ones last.
func (r *Router) route(ctx context.Context, q chain.Routing, pin bool) chain.Route {
	now := r.now()
	var d decision
	var unpaid, paid []int
	hops := make([]Hop, len(q.Hops))
	for i, qh := range q.Hops {
		h := r.hop(qh)
		hops[i] = h
		switch {
		case h.Gate == config.GateDisabled:
			d.disabled = append(d.disabled, h.Name)
			continue
		case h.Gate == config.GatePaid:
			d.paidSkipped = append(d.paidSkipped, h.Name)
			continue
		}
		if h.Budget > 0 {
			switch r.budgets.check(ctx, h, now) {
			case budgetReached:
				d.exhausted = append(d.exhausted, h.Name)
				continue
			case budgetUnknown:
				d.unknown = append(d.unknown, h.Name)
				continue
			}
		}
		if h.paid() {
			paid = append(paid, i)
		} else {
			unpaid = append(unpaid, i)
		}
	}

	d.strategy = r.p.Strategy
	if pin {
		d.strategy = ""
	}
	n := &note{}
	switch d.strategy {
	case config.StrategyRotate:
		d.cursor = -1
		if len(unpaid) > 0 {
			d.cursor = int(r.cursor.get() % uint64(len(unpaid)))
			unpaid = append(slices.Clone(unpaid[d.cursor:]), unpaid[:d.cursor]...)
		}
		n.rotating = true
	case config.StrategyLowestLatency:
		name := func(i int) string { return hops[i].Name }
		unpaid, paid = r.lat.order(unpaid, name, now), r.lat.order(paid, name, now)
		n.measuring = true
	case config.StrategyLowestCost:
		d.in, d.out = EstimateTokens(q.Request)
		unpaid, paid = r.byCost(unpaid, hops, d.in, d.out), r.byCost(paid, hops, d.in, d.out)
	}

	d.gate = "off"
	if r.p.Classifier != nil && !pin {
		d.gate = r.p.Classifier.rate(ctx, q.Request)
		if d.gate == verdictTrivial {
			unpaid = partition(unpaid, func(i int) bool { return hops[i].Tier == config.TierLocal })
		}
	}

	d.task = Task(q.Task)
	if d.task != "" {
		fits := func(i int) bool { return hops[i].fits(d.task) }
		unpaid, paid = partition(unpaid, fits), partition(paid, fits)
		for _, i := range append(slices.Clone(unpaid), paid...) {
			if fits(i) {
				d.fit = append(d.fit, hops[i].Name)
			}
		}
	}

	order := append(unpaid, paid...)
	for _, i := range order {
		d.order = append(d.order, hops[i].Name)
		n.names = append(n.names, hops[i].Name)
		n.bounds = append(n.bounds, firstTokenBound(q.Hops[i]))
	}
	for _, i := range paid {
		d.paidLast = append(d.paidLast, hops[i].Name)
	}
	n.paid = d.paidLast
	rt := chain.Route{Order: order, Line: d.line(pin), Note: n}
	if len(order) == 0 {
		rt.Empty = d.empty(r.p.Chain)
	}
	return rt
}

// firstTokenBound is what an attempt of h that failed before its first
// token costs lowest_latency: as long as it was allowed to take.
func firstTokenBound(h chain.Hop) time.Duration {
	if h.FirstToken > 0 {
		return h.FirstToken
	}
	return chain.DefaultFirstToken
}

// partition moves the indexes keep accepts to the front, each side in its
// order.
func partition(idx []int, keep func(int) bool) []int {
	out := make([]int, 0, len(idx))
	for _, i := range idx {
		if keep(i) {
			out = append(out, i)
		}
	}
	for _, i := range idx {
		if !keep(i) {
			out = append(out, i)
		}
	}
	return out
}

// Task is a task hint as routing compares it with good_at: trimmed and
// lower case; "" when it holds anything but letters, digits, '.', '_' and
// '-' or is longer than MaxTaskLen.
func Task(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) > MaxTaskLen {
		return ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return ""
		}
	}
	return s
}

// MaxTaskLen is the longest task hint.
const MaxTaskLen = 64

// decision is what route decided, for the trail's line and the error of a
// route with no provider.
type decision struct {
	task        string
	fit         []string
	strategy    config.Strategy // "" for a pin
	cursor      int             // rotate: where the rotation starts; -1 when nothing rotates
	in, out     int64           // lowest_cost: the expected tokens
	order       []string
	gate        string
	paidLast    []string
	paidSkipped []string
	disabled    []string
	exhausted   []string
	unknown     []string
}

// line writes the decision for the trail:
//
//	route task=code fit=glm strategy=rotate cursor=2 order=glm,ollama,claude gate=off paid=last(claude) paid=skipped(gpt4)
func (d *decision) line(pin bool) string {
	var b strings.Builder
	b.WriteString("route")
	if pin {
		b.WriteString(" pinned")
	}
	if d.task != "" {
		b.WriteString(" task=" + d.task + " fit=" + names(d.fit))
	}
	if d.strategy != "" {
		b.WriteString(" strategy=" + string(d.strategy))
	}
	switch d.strategy {
	case config.StrategyRotate:
		if d.cursor >= 0 {
			fmt.Fprintf(&b, " cursor=%d", d.cursor)
		}
	case config.StrategyLowestCost:
		fmt.Fprintf(&b, " tokens=%d+%d", d.in, d.out)
	}
	b.WriteString(" order=" + names(d.order))
	if !pin {
		b.WriteString(" gate=" + d.gate)
	}
	if len(d.paidLast) > 0 {
		b.WriteString(" paid=last(" + names(d.paidLast) + ")")
	}
	if len(d.paidSkipped) > 0 {
		b.WriteString(" paid=skipped(" + names(d.paidSkipped) + ")")
	}
	if len(d.disabled) > 0 {
		b.WriteString(" disabled=" + names(d.disabled))
	}
	if len(d.exhausted) > 0 {
		b.WriteString(" budget_exhausted=" + names(d.exhausted))
	}
	if len(d.unknown) > 0 {
		b.WriteString(" budget_unknown=" + names(d.unknown))
	}
	return b.String()
}

// names joins provider names with commas, each reduced to
// [A-Za-z0-9._-] so that config names cannot break the header; "-" for
// none.
func names(ns []string) string {
	if len(ns) == 0 {
		return "-"
	}
	var b strings.Builder
	for i, s := range ns {
		if i > 0 {
			b.WriteByte(',')
		}
		for j := 0; j < len(s); j++ {
			c := s[j]
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-' {
				b.WriteByte(c)
			} else {
				b.WriteByte('_')
			}
		}
	}
	return b.String()
}

// Codes of the error a Run gets when routing left it no provider.
const (
	CodeBudgetExhausted = "budget_exhausted" // every provider left is over its budget
	CodeNoRoute         = chain.CodeNoRoute  // the gates left none
)

// empty is why no provider may be tried: quota_exhausted when a budget
// left one out (the client may retry next month, or an operator raise
// it), else permanent: the configuration gates every provider.
func (d *decision) empty(chainName string) error {
	var why []string
	if len(d.paidSkipped) > 0 {
		why = append(why, names(d.paidSkipped)+" behind the paid gate (billing and the provider's enabled are not both on)")
	}
	if len(d.disabled) > 0 {
		why = append(why, names(d.disabled)+" disabled")
	}
	if len(d.exhausted) > 0 {
		why = append(why, names(d.exhausted)+" over its monthly budget")
	}
	if len(d.unknown) > 0 {
		why = append(why, names(d.unknown)+" with a budget and no spend to check it against")
	}
	msg := fmt.Sprintf("routing left chain %q no provider to try: %s", chainName, strings.Join(why, "; "))
	if len(d.exhausted)+len(d.unknown) > 0 {
		return &sdk.Error{Class: sdk.ClassQuotaExhausted, Code: CodeBudgetExhausted, Message: msg}
	}
	return &sdk.Error{Class: sdk.ClassPermanent, Code: CodeNoRoute, Message: msg}
}
