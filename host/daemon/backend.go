package daemon

import (
	"context"

	"github.com/axonhq/axon/host/api"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/sdk"
)

var _ api.Backend = (*Daemon)(nil)

// Resolve returns the chain, or the pin, a request's model names.
func (b *Daemon) Resolve(model string) (api.Target, bool) {
	ch, err := b.Chain(model)
	if err != nil {
		return nil, false
	}
	base, _, _ := chain.SplitPinned(model)
	return route{ch: ch, base: base, b: b, model: model}, true
}

// Models lists every chain and every CHAIN/PROVIDER pin, from the
// configuration: no plugin is asked (see docs/decisions.md, 2026-12-02).
func (b *Daemon) Models(context.Context) []api.ModelInfo {
	var out []api.ModelInfo
	for _, name := range b.order {
		ch := b.chains[name]
		out = append(out, api.ModelInfo{ID: name, Chain: name})
		for _, h := range ch.Hops {
			m := api.ModelInfo{ID: name + "/" + h.Name, Chain: name, Provider: h.Name, Model: h.Model}
			if p := b.cfg.Provider(h.Name); p != nil {
				m.Tier, m.GoodAt, m.Gate = string(p.Tier), p.GoodAt, b.cfg.Gate(p)
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
	ch := t.ch
	if src := sourceOf(ctx); src != "" && t.b != nil {
		if c, err := t.b.For(src).Chain(t.model); err == nil {
			ch = c
		}
	}
	res, err := ch.Run(ctx, req, out, func(c chain.Commit) {
		commit(api.Answer{Chain: ch.Name, Provider: c.Provider, Model: c.Model, Trail: chain.TrailLine(c.Route, c.Trail)})
	}, opts...)
	return &api.Answer{Chain: ch.Name, Provider: res.Provider, Model: res.Model, Trail: chain.TrailLine(res.Route, res.Trail)}, err
}
