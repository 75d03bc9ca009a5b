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
// model catalog. It does no I/O; Start on it resumes the runs a crash
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
	// A run freezes its chain's catalog entries: the prices its budget
	// and usage facts are priced at, as the usage facts do.
	return session.New(session.Options{Dir: SessionsDir(g.cfg), Chains: b.For(usage.SourceSession), Tools: tools, Catalog: sessionCatalog{b}, Logger: b.logger})
}
