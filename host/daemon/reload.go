package daemon

import (
	"fmt"
	"slices"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/supervisor"
	"github.com/axonhq/axon/host/usage"
	"github.com/axonhq/axon/sdk"
)

// Reloaded says what a Reload applied, by block name.
type Reloaded struct {
	Started []string `json:"started,omitempty"` // new or changed blocks: a fresh instance, started on first use
	Stopped []string `json:"stopped,omitempty"` // removed or changed blocks: retired once the old configuration drains
	Kept    []string `json:"kept,omitempty"`    // unchanged blocks: their processes keep running
	// Pending says, one line each, what changed but applies only when
	// axon serve starts again.
	Pending []string `json:"pending,omitempty"`
}

// Reload applies cfg, loaded and checked by the caller, while the daemon
// serves. Requests already running finish on the configuration they began
// on, with its plugin instances; new ones see cfg. A provider block whose
// plugin-facing configuration did not change keeps its process (editing
// its tier, enabled, good_at, budget or pricing, or any chain, restarts
// nothing). Tool and display blocks are held by the sessions and the
// faces, so a running one keeps its configuration until the next start
// (Pending says so), as do the axon block's listener, state and plugin
// directories, token file and plugin ids. On an error nothing changes.
func (b *Daemon) Reload(cfg *config.Config, lock *config.Lock) (Reloaded, error) {
	b.reloading.Lock()
	defer b.reloading.Unlock()
	old := b.current()
	prices, err := usage.NewPrices(cfg)
	if err != nil {
		return Reloaded{}, err
	}
	next, err := pluginSpecs(cfg, lock)
	if err != nil {
		return Reloaded{}, err
	}
	specs, pending := b.holdFixed(old.cfg, cfg, lock, next)
	fixed := func(name string) bool { return isFixed(old.cfg, name) }
	rec, err := b.sup.Reconcile(specs, old.drained, fixed)
	if err != nil {
		return Reloaded{}, err
	}
	g, err := b.newGeneration(cfg, prices)
	if err != nil {
		// The loader checked what could fail here (every chain's
		// providers exist, a classifier is a provider): reaching this is
		// a bug, and the old chains still run on their own instances.
		return Reloaded{}, fmt.Errorf("reload: %w", err)
	}
	b.gen.Store(g)
	old.retire()
	go func() {
		<-old.drained
		old.closeRouters()
	}()
	for _, name := range rec.Deferred {
		pending = append(pending, fmt.Sprintf("%s %q changed; it keeps running as it was until axon serve starts again", kindOf(old.cfg, name), name))
	}
	pending = append(pending, axonPending(old.cfg.Axon, cfg.Axon)...)
	out := Reloaded{
		Started: sorted(rec.Added, rec.Replaced, rec.Updated),
		Stopped: sorted(rec.Replaced, rec.Removed),
		Kept:    sorted(rec.Kept),
		Pending: pending,
	}
	b.logger.Info("configuration reloaded", "source", cfg.Source.String(), "started", out.Started, "stopped", out.Stopped, "kept", out.Kept)
	for _, p := range pending {
		b.logger.Warn("reload: applies at the next start", "change", p)
	}
	return out, nil
}

// holdFixed returns the specs to reconcile: next's providers, and its
// tools and displays only where the running ones can take them. A tool
// or display that was added is left out, and one that was removed is
// kept with its old spec; both are pending.
func (b *Daemon) holdFixed(oldCfg, cfg *config.Config, lock *config.Lock, next []supervisor.Spec) ([]supervisor.Spec, []string) {
	var out []supervisor.Spec
	var pending []string
	inNext := map[string]bool{}
	for _, sp := range next {
		inNext[sp.Name] = true
		if sp.Kind != sdk.KindProvider && !isFixed(oldCfg, sp.Name) {
			pending = append(pending, fmt.Sprintf("%s %q is new; it starts when axon serve starts again", sp.Kind, sp.Name))
			continue
		}
		out = append(out, sp)
	}
	oldSpecs, err := pluginSpecs(oldCfg, lock)
	if err != nil {
		return out, pending
	}
	for _, sp := range oldSpecs {
		if sp.Kind != sdk.KindProvider && !inNext[sp.Name] {
			pending = append(pending, fmt.Sprintf("%s %q was removed; it keeps running until axon serve starts again", sp.Kind, sp.Name))
			out = append(out, sp)
		}
	}
	return out, pending
}

// isFixed: name is a tool or display block of cfg.
func isFixed(cfg *config.Config, name string) bool {
	k := kindOf(cfg, name)
	return k == sdk.KindTool || k == sdk.KindDisplay
}

func kindOf(cfg *config.Config, name string) sdk.Kind {
	for _, pb := range cfg.PluginBlocks() {
		if pb.Name == name {
			return pb.Kind
		}
	}
	return ""
}

// axonPending names the axon block's settings that only a start applies.
func axonPending(old, next config.Axon) []string {
	var out []string
	for _, f := range []struct {
		name      string
		old, next string
	}{
		{"listen", old.Listen, next.Listen},
		{"unix_socket", old.UnixSocket, next.UnixSocket},
		{"state_dir", old.StateDir, next.StateDir},
		{"plugin_dir", old.PluginDir, next.PluginDir},
		{"token_file", old.TokenFile, next.TokenFile},
		{"plugin_ids", fmt.Sprint(old.PluginIDs), fmt.Sprint(next.PluginIDs)},
	} {
		if f.old != f.next {
			out = append(out, fmt.Sprintf("axon { %s } changed from %q to %q; it applies when axon serve starts again", f.name, f.old, f.next))
		}
	}
	return out
}

func sorted(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
