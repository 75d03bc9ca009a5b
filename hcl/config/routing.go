package config

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Billing is the paid gate, axon { billing { enabled = true } }: off
// unless written, so an api-tier provider never spends money nobody
// enabled.
type Billing struct {
	Enabled  bool
	DefRange hcl.Range // zero when the axon block has no billing block
}

// Budget caps what a provider may spend in a calendar month, as the usage
// store records it: once reached, routing skips the provider until the
// month ends.
type Budget struct {
	USDPerMonth float64
	DefRange    hcl.Range
}

// Strategy is how a chain orders its providers for each request. Every
// strategy falls back along its order when a provider fails.
type Strategy string

const (
	StrategyOrdered Strategy = "ordered" // as listed (the default)
	// StrategyRotate starts each request one provider further along, for
	// even load; the cursor survives restarts and moves only on success.
	StrategyRotate Strategy = "rotate"
	// StrategyLowestLatency tries first the provider with the lowest moving
	// average of measured first-token latency; untried ones are explored.
	StrategyLowestLatency Strategy = "lowest_latency"
	// StrategyLowestCost tries first the provider whose price for the
	// request's expected tokens is lowest.
	StrategyLowestCost Strategy = "lowest_cost"
)

// Strategies lists every strategy, the default first.
func Strategies() []Strategy {
	return []Strategy{StrategyOrdered, StrategyRotate, StrategyLowestLatency, StrategyLowestCost}
}

// Classifier is a chain's classifier gate: before routing, a local-tier
// provider rates the request trivial or not, and a trivial one goes to the
// chain's local tier first. Any failure to rate routes as the chain says.
type Classifier struct {
	Provider      string        // a local-tier provider block
	Timeout       time.Duration // how long the rating may take
	ProviderRange hcl.Range
	DefRange      hcl.Range
}

// DefaultClassifierTimeout bounds a classifier's rating when its block
// sets no timeout: a rating slower than this routes to the chain.
const DefaultClassifierTimeout = 3 * time.Second

// Why routing never sends a request to a provider (Config.Gate).
const (
	GateDisabled = "disabled" // enabled = false
	GatePaid     = "paid"     // tier "api" without billing and its own enabled = true
)

// Gate says why routing never sends a request to p: GateDisabled,
// GatePaid, or "" when it may. An api-tier provider passes only when the
// axon block enables billing and its own block says enabled = true; any
// other provider unless its block says enabled = false.
func (c *Config) Gate(p *Provider) string {
	switch {
	case p.Enabled != nil && !*p.Enabled:
		return GateDisabled
	case p.Tier == TierAPI && (!c.Axon.Billing.Enabled || p.Enabled == nil):
		return GatePaid
	}
	return ""
}

type rawBilling struct {
	Enabled  hcl.Expression `hcl:"enabled,optional"`
	DefRange hcl.Range      `hcl:",def_range"`
}

type rawBudget struct {
	USDPerMonth hcl.Expression `hcl:"usd_per_month,optional"`
	DefRange    hcl.Range      `hcl:",def_range"`
}

type rawClassifier struct {
	Provider hcl.Expression `hcl:"provider,optional"`
	Timeout  hcl.Expression `hcl:"timeout,optional"`
	DefRange hcl.Range      `hcl:",def_range"`
}

func (r *reader) billing(raw *rawBilling) Billing {
	b := Billing{DefRange: raw.DefRange}
	if on := r.strictBool(raw.Enabled, "enabled"); on != nil {
		b.Enabled = *on
	}
	return b
}

func (r *reader) budget(raw *rawBudget) *Budget {
	if !r.required(raw.USDPerMonth, "usd_per_month", raw.DefRange, "usd_per_month = 20") {
		return nil
	}
	usd, ok := r.float(raw.USDPerMonth, "usd_per_month")
	if !ok {
		return nil
	}
	if *usd == 0 {
		r.errorf(raw.USDPerMonth.Range(), `Invalid value for "usd_per_month"`,
			"A budget of 0 never lets the provider answer. Set enabled = false to keep routing from it, or a budget above 0.")
		return nil
	}
	return &Budget{USDPerMonth: *usd, DefRange: raw.DefRange}
}

// chainRouting reads a chain's strategy and classifier block.
func (r *reader) chainRouting(c *Chain, raw *rawChain) {
	c.Strategy = StrategyOrdered
	names := make([]string, 0, 4)
	for _, s := range Strategies() {
		names = append(names, string(s))
	}
	if s, ok := r.oneOf(raw.Strategy, "strategy", names...); ok {
		c.Strategy = Strategy(s)
	}
	if raw.Classifier == nil {
		return
	}
	cl := &Classifier{Timeout: DefaultClassifierTimeout, DefRange: raw.Classifier.DefRange}
	if !r.required(raw.Classifier.Provider, "provider", raw.Classifier.DefRange, "provider = provider.ollama") {
		return
	}
	name, ok := r.providerRef(raw.Classifier.Provider)
	if !ok {
		return
	}
	cl.Provider, cl.ProviderRange = name, raw.Classifier.Provider.Range()
	if d, ok := r.duration(raw.Classifier.Timeout, "timeout", false); ok {
		cl.Timeout = d
	}
	c.Classifier = cl
}

// validateRouting checks what routing needs across blocks: classifiers
// that exist and are local, and (once the file has no error, so that its
// errors come first) providers the gates keep from every request, said
// once each so a chain that never uses one is not a mystery.
func (r *reader) validateRouting(cfg *Config) {
	for _, c := range cfg.Chains {
		if c.Classifier != nil {
			r.validateClassifier(cfg, c)
		}
	}
	if r.diags.HasErrors() {
		return
	}
	inChain := map[string]bool{}
	for _, c := range cfg.Chains {
		for _, name := range c.Providers {
			inChain[name] = true
		}
	}
	for _, p := range cfg.Providers {
		if !inChain[p.Name] {
			continue
		}
		switch {
		case cfg.Gate(p) == GatePaid && p.DefRange.Filename == generatedFile:
			// The AXON_CHAIN entry has its own warning: the user has no
			// block to edit, only AXON_BILLING to set.
		case cfg.Gate(p) == GatePaid && !cfg.Axon.Billing.Enabled:
			r.warnf(p.DefRange, "Paid provider is never routed",
				"provider %q is tier \"api\" (billed per token) and billing is off, so no request is sent to it; axon check and /v1/models still show it. To use it as the last resort, after every unpaid provider of a chain failed, set axon { billing { enabled = true } } and enabled = true in this block.", p.Name)
		case cfg.Gate(p) == GatePaid:
			r.warnf(p.DefRange, "Paid provider is never routed",
				"provider %q is tier \"api\" (billed per token) and its block does not say enabled = true, so no request is sent to it although billing is on. Set enabled = true to use it as the last resort.", p.Name)
		}
		if p.Budget != nil && (p.Tier == TierLocal || p.Tier == TierSub) && p.Pricing.InputPerMTok == nil && p.Pricing.OutputPerMTok == nil {
			r.warnf(p.Budget.DefRange, "Budget is never reached",
				"provider %q is tier %q, whose tokens cost nothing each unless its pricing {} says otherwise, so its recorded spend stays 0 and the budget never applies.", p.Name, p.Tier)
		}
	}
	for _, c := range cfg.Chains {
		open := slices.ContainsFunc(c.Providers, func(name string) bool {
			p := cfg.Provider(name)
			return p == nil || cfg.Gate(p) == ""
		})
		if !open {
			r.warnf(c.DefRange, "Chain can answer nothing",
				"Every provider of chain %q is disabled or behind the paid gate, so each of its requests fails at once (no_route).", c.Name)
		}
	}
}

func (r *reader) validateClassifier(cfg *Config, c *Chain) {
	cl := c.Classifier
	p := cfg.Provider(cl.Provider)
	if p == nil {
		var names []string
		for _, p := range cfg.Providers {
			names = append(names, p.Name)
		}
		r.errorf(cl.ProviderRange, "Unknown provider", "The classifier of chain %q is provider %q, which is not defined.%s Defined providers: %s.",
			c.Name, cl.Provider, didYouMean(cl.Provider, names), strings.Join(names, ", "))
		return
	}
	if p.Tier != TierLocal {
		tier := "no tier"
		if p.Tier != TierUnset {
			tier = fmt.Sprintf("tier %q", p.Tier)
		}
		r.errorf(cl.ProviderRange, "Classifier is not local",
			"The classifier reads every request of chain %q before it is routed, so it must run here: provider %q has %s. Use a local provider (preset = \"ollama\", or tier = \"local\").", c.Name, p.Name, tier)
		return
	}
	if g := cfg.Gate(p); g != "" {
		r.warnf(cl.ProviderRange, "Classifier is disabled",
			"provider %q has enabled = false, so the classifier of chain %q is never asked and every request routes as the chain says.", p.Name, c.Name)
		return
	}
	var local []string
	for _, name := range c.Providers {
		if hp := cfg.Provider(name); hp != nil && hp.Tier == TierLocal && cfg.Gate(hp) == "" {
			local = append(local, name)
		}
	}
	if len(local) == 0 {
		r.warnf(cl.DefRange, "Classifier gate has no local provider",
			"A request the classifier rates trivial goes to the chain's local-tier providers first, and chain %q has none that may answer (providers: %s), so the rating changes nothing. Add a local provider to the chain.",
			c.Name, strings.Join(c.Providers, ", "))
	}
}
