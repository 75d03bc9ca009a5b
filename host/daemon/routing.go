package daemon

import (
	"fmt"

	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/routing"
)

// routeChains gives each chain that has anything to decide (routing's
// Policy.Needed) its Router, from the configuration: the gates, the
// strategy, the classifier and task fit. It prices with the daemon's
// prices and reads budgets' spend from the usage store when Options.Usage
// is one. A chain with nothing to decide keeps trying its providers as
// listed, with no route line in its trail.
func (b *Daemon) routeChains(g *generation) error {
	deps := routing.Deps{StateDir: g.cfg.Axon.StateDir, Prices: g.prices, Logger: b.logger}
	if s, ok := b.opts.Usage.(routing.Spend); ok {
		deps.Spend = s
	}
	for _, c := range g.cfg.Chains {
		p := routing.PolicyFor(g.cfg, c)
		if !p.Needed() {
			continue
		}
		if p.Classifier != nil {
			in, err := b.sup.Instance(p.Classifier.Provider)
			if err != nil {
				return fmt.Errorf("chain %s: classifier: %w", c.Name, err)
			}
			p.Classifier.Gen = in
		}
		g.chains[c.Name].Router = routing.New(p, deps)
	}
	return nil
}

// pin is ch.Pin(provider) under ch's gates: a pinned provider still needs
// the paid gate open and its budget unspent.
func pin(ch *chain.Chain, provider string) (*chain.Chain, error) {
	p, err := ch.Pin(provider)
	if err != nil {
		return nil, err
	}
	if r, ok := ch.Router.(*routing.Router); ok {
		p.Router = r.Pinned()
	}
	return p, nil
}

// closeRouters writes what the routers keep: the rotation cursors.
func (g *generation) closeRouters() {
	for _, ch := range g.chains {
		if r, ok := ch.Router.(*routing.Router); ok {
			r.Close()
		}
	}
}
