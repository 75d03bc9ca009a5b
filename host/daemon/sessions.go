package daemon

import (
	"path/filepath"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/session"
	"github.com/axonhq/axon/host/supervisor"
)

// The daemon is what the session loop runs on: its chains, its tool plugins.
var (
	_ session.Chains = (*Daemon)(nil)
	_ session.Tool   = (*supervisor.Instance)(nil)
)

// SessionsDir is where the sessions of cfg live: <state_dir>/sessions.
func SessionsDir(cfg *config.Config) string { return filepath.Join(cfg.Axon.StateDir, "sessions") }

// NewSessions returns a session manager that runs on b: its chains, its
// tool blocks, the vault's recall tool and the providers' prices. It does
// no I/O; Start on it resumes the runs a crash left open.
func (b *Daemon) NewSessions() (*session.Manager, error) {
	tools := map[string]session.Tool{}
	for name, in := range b.Tools() {
		tools[name] = in
	}
	if b.cfg.Vault != nil {
		if _, taken := tools[session.RecallBlock]; taken {
			b.logger.Warn("a tool block is named \"recall\": the vault's recall tool is not offered")
		} else {
			tools[session.RecallBlock] = session.NewRecall(b.cfg.Vault.Dir)
		}
	}
	prices := map[string]session.Price{}
	for _, p := range b.cfg.Providers {
		prices[p.Name] = session.Price{
			InputPerMTok: p.Pricing.InputPerMTok, OutputPerMTok: p.Pricing.OutputPerMTok,
			CacheReadPerMTok: p.Pricing.CacheReadPerMTok, CacheWritePerMTok: p.Pricing.CacheWritePerMTok,
		}
	}
	return session.New(session.Options{Dir: SessionsDir(b.cfg), Chains: b, Tools: tools, Prices: prices, Logger: b.logger})
}
