package daemon

import (
	"context"

	"github.com/axonhq/axon/host/api"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/sdk"
)

var _ api.Backend = (*Daemon)(nil)

// Resolve returns the chain, or the pin, a request's model names, on the
// configuration new requests run on.
func (b *Daemon) Resolve(model string) (api.Target, bool) {
	g := b.current()
	ch, err := lookup(g.chains, model)
	if err != nil {
		return nil, false
	}
	base, _, _ := chain.SplitPinned(model)
	return route{ch: ch, base: base, b: b, g: g, model: model}, true
}

// Models lists every chain and every CHAIN/PROVIDER pin, from the
// configuration, each pin with its model catalog facts: no plugin is asked
// (see docs/decisions.md, 2026-12-02); the catalog has what plugins said
// when they last ran.
func (b *Daemon) Models(context.Context) []api.ModelInfo {
	g := b.current()
	var out []api.ModelInfo
	for _, name := range g.order {
		ch := g.chains[name]
		out = append(out, api.ModelInfo{ID: name, Chain: name})
		for _, h := range ch.Hops {
			m := api.ModelInfo{ID: name + "/" + h.Name, Chain: name, Provider: h.Name, Model: h.Model}
			if p := g.cfg.Provider(h.Name); p != nil {
				m.Tier, m.GoodAt, m.Gate = string(p.Tier), p.GoodAt, g.cfg.Gate(p)
			}
			if e, ok := g.catalog.Entry(h.Name); ok {
				m.Facts = modelFacts(e)
				if m.Model == "" {
					m.Model = e.Model
				}
			}
			out = append(out, m)
		}
	}
	return out
}

// route is one resolved model name: ch runs it, base is the chain it
// belongs to (ch's own name, or the chain a pin was cut from). Generate
// runs the same chain as the request's wire format (sourceOf) when there
// is one, so its usage fact names it.
type route struct {
	ch    *chain.Chain
	base  string
	b     *Daemon
	g     *generation // the configuration ch is of
	model string
}

var _ api.Target = route{}

func (t route) Chain() string { return t.base }

// Generate runs req on the chain and streams the answer into out; commit
// learns which provider answers just before its first content goes out. A
// Whole answer runs Buffered: it commits only once it is complete. The
// Answer is returned on failure too: it carries the trail.
func (t route) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink, commit func(api.Answer), d api.Delivery) (*api.Answer, error) {
	var opts []chain.RunOption
	if d == api.Whole {
		// Held up to the front door's own limit on a whole answer: one that
		// outgrows it is refused there, as answer_too_large.
		opts = append(opts, chain.Buffered(api.DefaultMaxAnswerBytes))
	}
	if task := api.TaskOf(ctx); task != "" {
		opts = append(opts, chain.Task(task))
	}
	ch, g := t.ch, t.g
	if !g.enter() {
		// A reload replaced the configuration, and its last request ended,
		// between Resolve and here: run on the new one.
		g = t.b.enter()
		c, err := lookup(g.chains, t.model)
		if err != nil {
			g.leave()
			return &api.Answer{Chain: t.base}, err
		}
		ch = c
	}
	defer g.leave()
	ctx = withMediaSession(ctx) // one per client request: its hops and retries share the fetches
	ctx = withUnrendered(ctx)
	if src := sourceOf(ctx); src != "" {
		if c, err := lookup(g.sourced[src], t.model); err == nil {
			ch = c
		}
	}
	res, err := ch.Run(ctx, req, out, func(c chain.Commit) {
		commit(api.Answer{Chain: ch.Name, Provider: c.Provider, Model: c.Model, Trail: chain.TrailLine(c.Route, c.Trail), Unrendered: unrenderedOf(ctx)})
	}, opts...)
	return &api.Answer{Chain: ch.Name, Provider: res.Provider, Model: res.Model, Trail: chain.TrailLine(res.Route, res.Trail)}, err
}
