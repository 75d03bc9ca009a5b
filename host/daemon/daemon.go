package daemon

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/egress"
	"github.com/axonhq/axon/host/faces"
	"github.com/axonhq/axon/host/supervisor"
	"github.com/axonhq/axon/host/usage"
)

// Options tunes a Daemon beyond what the configuration says.
type Options struct {
	Supervisor supervisor.Options
	Faces      faces.Options
	// Metrics, when set, records requests, hops and egress traffic.
	Metrics *Metrics
	// NoFaces creates no faces: nothing draws, so no display plugin is
	// started and configured (which opens its panel) on its own. `axon
	// check` inspects the displays without disturbing a running daemon's.
	NoFaces bool
	// Usage, when set, is where the usage facts of the turns go that the
	// front door, the sessions and For(source) run (never those of
	// Chain's chains: check's probes). The caller closes it after Close.
	Usage usage.Writer
}

// Daemon is a configured axon: plugins, chains and displays.
type Daemon struct {
	cfg    *config.Config
	logger hclog.Logger
	sup    *supervisor.Supervisor
	chains map[string]*chain.Chain
	order  []string // chain names as configured
	faces  *faces.Faces
	prices *usage.Prices
	// usage records the facts of the sourced chains: one copy of every
	// chain per usage.Source, whose observers end with the recorder's.
	usage   *usage.Recorder // nil without Options.Usage
	sourced map[usage.Source]map[string]*chain.Chain
}

// New registers every plugin instance (none starts yet) and builds the
// chains. lock may be nil.
func New(cfg *config.Config, lock *config.Lock, logger hclog.Logger, opts Options) (*Daemon, error) {
	if opts.Metrics != nil {
		opts.Supervisor.EgressOptions = append(opts.Supervisor.EgressOptions, egress.WithStats(opts.Metrics.egress))
	}
	if opts.Supervisor.PluginIDs == (supervisor.IDRange{}) {
		opts.Supervisor.PluginIDs = supervisor.IDRange(cfg.Axon.PluginIDs)
	}
	prices, err := usage.NewPrices(cfg)
	if err != nil {
		return nil, err
	}
	b := &Daemon{cfg: cfg, logger: logger, sup: supervisor.New(logger, opts.Supervisor), chains: map[string]*chain.Chain{}, prices: prices}
	if err := b.addPlugins(lock); err != nil {
		b.sup.Close()
		return nil, err
	}
	var displays []faces.Display
	for _, d := range cfg.Displays {
		in, _ := b.sup.Instance(d.Name)
		displays = append(displays, in)
	}
	var observers multiObserver
	if len(displays) > 0 && !opts.NoFaces {
		b.faces = faces.New(displays, logger, opts.Faces)
		observers = append(observers, b.faces)
	}
	if opts.Metrics != nil {
		observers = append(observers, opts.Metrics)
	}
	if logger != nil {
		observers = append(observers, turnLog{logger: logger.Named("chain")})
	}
	if err := b.buildChains(observers); err != nil {
		b.Close()
		return nil, err
	}
	if err := b.routeChains(opts); err != nil {
		b.Close()
		return nil, err
	}
	if opts.Usage != nil {
		b.recordUsage(opts, observers)
	}
	return b, nil
}

// recordUsage starts the usage recorder and builds the chains each source
// runs: the configured ones with the recorder's observer added.
func (b *Daemon) recordUsage(opts Options, observers multiObserver) {
	uo := usage.Options{}
	if b.logger != nil {
		uo.Logger = b.logger.Named("usage")
	}
	if opts.Metrics != nil {
		uo.Meter = opts.Metrics
	}
	b.usage = usage.NewRecorder(opts.Usage, b.prices, uo)
	b.usage.Start()
	b.sourced = map[usage.Source]map[string]*chain.Chain{}
	for _, src := range usage.Sources() {
		chains := map[string]*chain.Chain{}
		obs := append(slices.Clone(observers), b.usage.Observer(src))
		for name, ch := range b.chains {
			c := *ch
			c.Observer = obs
			chains[name] = &c
		}
		b.sourced[src] = chains
	}
}

func (b *Daemon) addPlugins(lock *config.Lock) error {
	for _, p := range b.cfg.Providers {
		sp, err := pluginSpec(b.cfg, lock, &p.PluginBlock)
		if err != nil {
			return err
		}
		if sp.Egress, err = providerGrant(p); err != nil {
			return fmt.Errorf("provider %s: %w", p.Name, err)
		}
		if err := b.sup.Add(sp); err != nil {
			return err
		}
	}
	for _, t := range b.cfg.Tools {
		sp, err := pluginSpec(b.cfg, lock, &t.PluginBlock)
		if err != nil {
			return err
		}
		if sp.Egress, err = toolGrant(t); err != nil {
			return fmt.Errorf("tool %s: %w", t.Name, err)
		}
		if err := b.sup.Add(sp); err != nil {
			return err
		}
	}
	for _, d := range b.cfg.Displays {
		sp, err := pluginSpec(b.cfg, lock, &d.PluginBlock)
		if err != nil {
			return err
		}
		if err := b.sup.Add(sp); err != nil {
			return err
		}
	}
	return nil
}

func (b *Daemon) buildChains(obs chain.Observer) error {
	for _, c := range b.cfg.Chains {
		ch := &chain.Chain{
			Name: c.Name,
			Policy: chain.Policy{
				Attempts: c.Retry.Attempts, Backoff: c.Retry.Backoff, MaxRetryAfter: c.Retry.MaxRetryAfter,
				AllowContentFilterFallback: c.AllowContentFilterFallback,
			},
		}
		if obs != nil {
			ch.Observer = obs
		}
		for _, name := range c.Providers {
			p := b.cfg.Provider(name)
			in, err := b.sup.Instance(name)
			if p == nil || err != nil {
				return fmt.Errorf("chain %s: no provider %q", c.Name, name)
			}
			hop := chain.Hop{
				Name: name, Provider: in, Model: p.Model(), ContextWindow: int64(p.ContextWindow),
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
			ch.Hops = append(ch.Hops, hop)
		}
		if err := ch.Validate(); err != nil {
			return err
		}
		b.chains[c.Name] = ch
		b.order = append(b.order, c.Name)
	}
	return nil
}

// Supervisor exposes the plugin instances (for `axon check` and tests).
func (b *Daemon) Supervisor() *supervisor.Supervisor { return b.sup }

// Chain returns the chain for a model name: "CHAIN" or "CHAIN/PROVIDER".
func (b *Daemon) Chain(model string) (*chain.Chain, error) { return b.lookup(b.chains, model) }

func (b *Daemon) lookup(chains map[string]*chain.Chain, model string) (*chain.Chain, error) {
	name, provider, pinned := chain.SplitPinned(model)
	ch, ok := chains[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q (configured: %s)", ErrNoSuchChain, model, strings.Join(slices.Sorted(maps.Keys(chains)), ", "))
	}
	if !pinned {
		return ch, nil
	}
	return pin(ch, provider)
}

// ErrNoSuchChain: the model names no configured chain or pin.
var ErrNoSuchChain = errors.New("no such chain")

// Close stops the faces, kills every plugin process and writes the usage
// facts still queued (for usageDrain at most).
func (b *Daemon) Close() {
	if b.faces != nil {
		b.faces.Close()
	}
	b.haltDisplays()
	b.sup.Close()
	b.closeRouters()
	if b.usage != nil {
		ctx, cancel := context.WithTimeout(context.Background(), usageDrain)
		b.usage.Close(ctx)
		cancel()
	}
}

// usageDrain bounds how long Close waits for the usage store.
const usageDrain = 5 * time.Second

// Prices are the prices of the configuration: the table under its
// providers' pricing {} (for routing, and the sessions' budgets).
func (b *Daemon) Prices() *usage.Prices { return b.prices }

// haltDisplays puts panels to sleep on the way out (E-Ink keeps its last
// image; a sleeping panel draws no current).
func (b *Daemon) haltDisplays() {
	for _, d := range b.cfg.Displays {
		in, err := b.sup.Instance(d.Name)
		if err != nil || in.Pid() == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), haltTimeout)
		if err := in.Halt(ctx); err != nil {
			b.logger.Warn("display halt failed", "display", d.Name, "error", err)
		}
		cancel()
	}
}
