package daemon

import (
	"path/filepath"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/session"
	"github.com/axonhq/axon/host/supervisor"
	"github.com/axonhq/axon/host/usage"
)

// The daemon is what the session loop runs on: its chains, its tool plugins.
var (
	_ session.Chains = (*Daemon)(nil)
	_ session.Chains = Sourced{}
	_ session.Tool   = (*supervisor.Instance)(nil)
)

// SessionsDir is where the sessions of cfg live: <state_dir>/sessions.
func SessionsDir(cfg *config.Config) string { return filepath.Join(cfg.Axon.StateDir, "sessions") }

// NewSessions returns a session manager that runs on b: its chains (as
// usage.SourceSession), its tool blocks, the vault's recall tool and the
// providers' prices. It does no I/O; Start on it resumes the runs a crash
// left open.
func (b *Daemon) NewSessions() (*session.Manager, error) {
	g := b.current()
	tools := map[string]session.Tool{}
	for name, in := range b.Tools() {
		tools[name] = in
	}
	if g.cfg.Vault != nil {
		if _, taken := tools[session.RecallBlock]; taken {
			b.logger.Warn("a tool block is named \"recall\": the vault's recall tool is not offered")
		} else {
			tools[session.RecallBlock] = session.NewRecall(g.cfg.Vault.Dir)
		}
	}
	// A run's budget prices its steps as the usage facts do: pricing {}
	// over the price table's row for the block's model, a local or
	// subscription tier free per token.
	prices := map[string]session.Price{}
	for _, p := range g.cfg.Providers {
		pr, _ := g.prices.Lookup(p.Name, p.Model())
		prices[p.Name] = session.Price{
			InputPerMTok: pr.Input, OutputPerMTok: pr.Output, CacheReadPerMTok: pr.CacheRead, CacheWritePerMTok: pr.CacheWrite,
		}
	}
	return session.New(session.Options{Dir: SessionsDir(g.cfg), Chains: b.For(usage.SourceSession), Tools: tools, Prices: prices, Logger: b.logger})
}
