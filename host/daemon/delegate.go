package daemon

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/api"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/delegate"
	"github.com/axonhq/axon/host/media"
	"github.com/axonhq/axon/host/routing"
	"github.com/axonhq/axon/host/supervisor"
	"github.com/axonhq/axon/host/usage"
	"github.com/axonhq/axon/sdk"
)

// DelegateChain is the chain name delegated sub-tasks run, and are
// recorded, under: a chain built per call over the providers the delegate
// server chose, not one of the configuration's.
const DelegateChain = "delegate"

// Delegates is the daemon as the MCP delegate server's Broker (axon mcp,
// /mcp on the front door).
func (b *Daemon) Delegates() delegate.Broker { return delegates{b: b} }

type delegates struct{ b *Daemon }

var _ delegate.Broker = delegates{}

// Targets is the menu: every provider that sets can_delegate = true, in
// declared order, with its gate and price as routing sees them.
func (d delegates) Targets() []delegate.Target {
	g := d.b.current()
	var out []delegate.Target
	for _, p := range g.cfg.Providers {
		if !p.CanDelegate {
			continue
		}
		t := delegate.Target{ID: p.Name, Tier: p.Tier, GoodAt: slices.Clone(p.GoodAt), Plugin: p.Plugin, Model: p.Model(), Gate: g.cfg.Gate(p)}
		if price, basis := g.prices.Lookup(p.Name, p.Model()); basis != usage.BasisUnknown {
			t.Input, t.Output = price.Input, price.Output
		}
		out = append(out, t)
	}
	return out
}

// Delegate runs job as a leaf turn, with no tools, through a chain over
// providers: the same retry, fallback, gates, trail and observers as a
// configured chain's, its usage recorded as usage.SourceDelegate. It
// takes the answer whole: the caller's tool result is one piece.
func (d delegates) Delegate(ctx context.Context, providers []string, job delegate.Job) (*delegate.Answer, error) {
	g := d.b.enter()
	defer g.leave()
	ch, err := d.b.delegateChain(g, providers)
	if err != nil {
		return &delegate.Answer{}, err
	}
	req := &sdk.Request{
		Messages:  []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: job.Prompt}}}},
		MaxTokens: job.MaxTokens,
	}
	var text strings.Builder
	sink := sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error {
		if ev.Type == sdk.EventTextDelta {
			text.WriteString(ev.Text)
		}
		return nil
	})
	res, err := ch.Run(ctx, req, sink, nil, chain.Buffered(api.DefaultMaxAnswerBytes))
	return &delegate.Answer{Text: text.String(), Provider: res.Provider, Model: res.Model, Trail: chain.TrailLine(res.Route, res.Trail)}, err
}

// delegateChain builds, on g, the chain a delegated call runs: providers'
// hops in order, the default retry policy, the observers of a sourced
// chain, and a Router when routing has anything to decide (gates,
// budgets), as routeChains gives a configured chain.
func (b *Daemon) delegateChain(g *generation, providers []string) (*chain.Chain, error) {
	ch := &chain.Chain{Name: DelegateChain}
	obs := slices.Clone(b.observers)
	if b.usage != nil {
		obs = append(obs, b.usage.PricedObserver(usage.SourceDelegate, g.prices))
	}
	ch.Observer = append(obs, b.feed.observer(usage.SourceDelegate))
	for _, name := range providers {
		p := g.cfg.Provider(name)
		in, err := b.sup.Instance(name)
		if p == nil || err != nil {
			return nil, fmt.Errorf("%w: delegate target %q", ErrNoSuchChain, name)
		}
		ch.Hops = append(ch.Hops, hopOf(p, in, g.media))
	}
	if err := ch.Validate(); err != nil {
		return nil, err
	}
	if p := routing.PolicyFor(g.cfg, &config.Chain{Name: DelegateChain, Providers: providers}); p.Needed() {
		deps := routing.Deps{StateDir: g.cfg.Axon.StateDir, Prices: g.prices, Logger: b.logger}
		if s, ok := b.opts.Usage.(routing.Spend); ok {
			deps.Spend = s
		}
		ch.Router = routing.New(p, deps) // ordered: it keeps no cursor to close
	}
	return ch, nil
}

// hopOf is provider p's hop on instance in: the one every chain and
// every delegated call is built of.
func hopOf(p *config.Provider, in *supervisor.Instance, f *media.Fetcher) chain.Hop {
	hop := chain.Hop{
		Name: p.Name, Provider: pluginHop{in: in, fetcher: f}, Model: p.Model(), ContextWindow: int64(p.ContextWindow),
		FirstToken: p.Timeouts.FirstToken, Idle: p.Timeouts.Idle,
	}
	if p.Prefill != nil {
		hop.Prefill = *p.Prefill // the block overrides the plugin
	} else {
		hop.PrefillFunc = func(ctx context.Context) bool {
			info, err := in.Info(ctx)
			return err == nil && info.Prefill
		}
	}
	if p.StructuredOutput != nil {
		hop.Output = *p.StructuredOutput // the block overrides the plugin
	} else {
		hop.OutputFunc = func(ctx context.Context) bool {
			// A plugin that cannot start is tried all the same, so the
			// trail and the client see why it failed, not a skip that
			// blames structured output.
			info, err := in.Info(ctx)
			return err != nil || info.Output
		}
	}
	return hop
}
