package daemon

import (
	"context"
	"errors"

	"github.com/axonhq/axon/host/api"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/sdk"
)

var _ api.Backend = (*Daemon)(nil)

// Generate runs req on the chain model names and streams the answer into
// out. The Answer is returned on failure too: it carries the trail.
func (b *Daemon) Generate(ctx context.Context, model string, req *sdk.Request, out sdk.Sink) (*api.Answer, error) {
	ch, err := b.Chain(model)
	if err != nil {
		if errors.Is(err, chain.ErrNoSuchHop) {
			err = &sdk.Error{Class: sdk.ClassPermanent, Code: "model_not_found", Message: err.Error()}
		}
		return &api.Answer{}, err
	}
	if a, ok := out.(api.Announcer); ok {
		out = &announcingSink{Sink: out, announcer: a, chain: ch.Name}
	}
	res, err := ch.Run(ctx, req, out)
	ans := &api.Answer{Chain: ch.Name}
	if res != nil {
		ans.Provider, ans.Model, ans.Trail = res.Provider, res.Model, res.Trail.String()
	}
	return ans, err
}

// Models lists every chain and every CHAIN/PROVIDER pin.
func (b *Daemon) Models(context.Context) []api.ModelInfo {
	var out []api.ModelInfo
	for _, name := range b.order {
		ch := b.chains[name]
		out = append(out, api.ModelInfo{ID: name, Chain: name})
		for _, h := range ch.Hops {
			out = append(out, api.ModelInfo{ID: name + "/" + h.Name, Chain: name, Provider: h.Name, Model: h.Model})
		}
	}
	return out
}

// announcingSink tells the front door which provider answers just before
// its first content goes out, so the x-axon-* headers are right on streams.
type announcingSink struct {
	sdk.Sink
	announcer api.Announcer
	chain     string
}

var _ chain.CommitListener = (*announcingSink)(nil)

func (s *announcingSink) Commit(provider, model string, trail chain.Trail) {
	s.announcer.Announce(api.Answer{Chain: s.chain, Provider: provider, Model: model, Trail: trail.String()})
}
