package daemon

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/catalog"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/egress"
	"github.com/axonhq/axon/host/faces"
	"github.com/axonhq/axon/host/media"
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
	// Load reads the configuration again for FrontDoor.Reload (SIGHUP,
	// POST /v1/reload, the panel's knobs): axon serve's is the same source
	// through the same checks as at start. Nil refuses a reload.
	Load func(context.Context) (*config.Config, *config.Lock, error)
	// Loader is what the panel's knobs check an edited file with, as
	// axon check would (the CLI's environment, home and executable dir).
	Loader config.Options
}

// Daemon is a configured axon: plugins, chains and displays. What comes
// from the configuration is one generation, replaced whole by Reload.
type Daemon struct {
	logger hclog.Logger
	sup    *supervisor.Supervisor
	faces  *faces.Faces
	opts   Options
	// observers see every chain's turns (the faces, the metrics, the turn
	// log, the panel's feed); the sourced chains add the recorder's.
	observers multiObserver
	// usage records the facts of the sourced chains: one copy of every
	// chain per usage.Source, whose observers end with the recorder's.
	usage *usage.Recorder // nil without Options.Usage

	feed *feed // the panel's live view
	// learner keeps the provider plugins' answers for the model catalog.
	learner *learner

	reloading sync.Mutex // one Reload at a time
	gen       atomic.Pointer[generation]
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
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	prices, err := usage.NewPrices(cfg)
	if err != nil {
		return nil, err
	}
	b := &Daemon{logger: logger, sup: supervisor.New(logger, opts.Supervisor), opts: opts, feed: newFeed(), learner: newLearner(cfg, logger)}
	specs, err := pluginSpecs(cfg, lock)
	if err != nil {
		b.sup.Close()
		return nil, err
	}
	for _, sp := range specs {
		if err := b.sup.Add(sp); err != nil {
			b.sup.Close()
			return nil, err
		}
	}
	var displays []faces.Display
	for _, d := range cfg.Displays {
		in, _ := b.sup.Instance(d.Name)
		displays = append(displays, in)
	}
	if len(displays) > 0 && !opts.NoFaces {
		fo := opts.Faces
		if fo.Shown == nil {
			fo.Shown = b.feed.shown
		}
		b.faces = faces.New(displays, logger, fo)
		b.observers = append(b.observers, b.faces)
	}
	if opts.Metrics != nil {
		b.observers = append(b.observers, opts.Metrics)
	}
	b.observers = append(b.observers, turnLog{logger: logger.Named("chain")})
	if opts.Usage != nil {
		uo := usage.Options{Logger: logger.Named("usage")}
		if opts.Metrics != nil {
			uo.Meter = opts.Metrics
		}
		b.usage = usage.NewRecorder(opts.Usage, prices, uo)
		b.usage.Start()
	}
	g, err := b.newGeneration(cfg, prices)
	if err != nil {
		b.Close()
		return nil, err
	}
	b.gen.Store(g)
	return b, nil
}

// generation is what one configuration makes of the plugin instances: the
// chains with their routers, the sourced copies, the prices. Requests
// hold it while they run (enter, leave), so a Reload can tell when the
// last request on the old one ended.
type generation struct {
	cfg     *config.Config
	prices  *usage.Prices
	catalog *catalog.Catalog
	chains  map[string]*chain.Chain
	order   []string // chain names as configured
	// sourced holds, per usage.Source, the chains with the recorder's
	// observer added; nil without a recorder.
	sourced map[usage.Source]map[string]*chain.Chain
	media   *media.Fetcher // fetches URL parts for providers that take only inline data

	mu      sync.Mutex
	refs    int
	retired bool
	drained chan struct{} // closed once retired with no request left on it
}

// newGeneration builds cfg's chains over the registered instances.
func (b *Daemon) newGeneration(cfg *config.Config, prices *usage.Prices) (*generation, error) {
	g := &generation{cfg: cfg, prices: prices, catalog: catalog.New(cfg, prices, b.learner.store), chains: map[string]*chain.Chain{}, drained: make(chan struct{})}
	f, err := newFetcher(cfg.Axon.Media)
	if err != nil {
		return nil, err
	}
	g.media = f
	if err := b.buildChains(g); err != nil {
		return nil, err
	}
	if err := b.routeChains(g); err != nil {
		g.closeRouters()
		return nil, err
	}
	if b.usage != nil {
		g.sourced = map[usage.Source]map[string]*chain.Chain{}
		for _, src := range usage.Sources() {
			chains := map[string]*chain.Chain{}
			obs := append(slices.Clone(b.observers), b.usage.PricedObserver(src, prices), b.feed.observer(src))
			for name, ch := range g.chains {
				c := *ch
				c.Observer = obs
				chains[name] = &c
			}
			g.sourced[src] = chains
		}
	}
	return g, nil
}

// enter counts a request on g; false once g has drained (a Reload
// replaced it and its last request ended), when the caller must take the
// current generation instead.
func (g *generation) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.retired && g.refs == 0 {
		return false
	}
	g.refs++
	return true
}

func (g *generation) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refs--
	g.drainLocked()
}

// retire marks g replaced; drained closes when its last request leaves.
func (g *generation) retire() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.retired = true
	g.drainLocked()
}

func (g *generation) drainLocked() {
	if g.retired && g.refs == 0 {
		select {
		case <-g.drained:
		default:
			close(g.drained)
		}
	}
}

// current is the generation new requests run on.
func (b *Daemon) current() *generation { return b.gen.Load() }

// enter counts a request on the current generation and returns it.
func (b *Daemon) enter() *generation {
	for {
		if g := b.current(); g.enter() {
			return g
		}
	}
}

// Config is the configuration new requests run on.
func (b *Daemon) Config() *config.Config { return b.current().cfg }

// pluginSpecs is the supervisor spec of every block of cfg.
func pluginSpecs(cfg *config.Config, lock *config.Lock) ([]supervisor.Spec, error) {
	var out []supervisor.Spec
	for _, p := range cfg.Providers {
		sp, err := pluginSpec(cfg, lock, &p.PluginBlock)
		if err != nil {
			return nil, err
		}
		if sp.Egress, err = providerGrant(p); err != nil {
			return nil, fmt.Errorf("provider %s: %w", p.Name, err)
		}
		out = append(out, sp)
	}
	for _, t := range cfg.Tools {
		sp, err := pluginSpec(cfg, lock, &t.PluginBlock)
		if err != nil {
			return nil, err
		}
		if sp.Egress, err = toolGrant(t); err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		out = append(out, sp)
	}
	for _, d := range cfg.Displays {
		sp, err := pluginSpec(cfg, lock, &d.PluginBlock)
		if err != nil {
			return nil, err
		}
		out = append(out, sp)
	}
	return out, nil
}

func (b *Daemon) buildChains(g *generation) error {
	for _, c := range g.cfg.Chains {
		ch := &chain.Chain{
			Name: c.Name,
			Policy: chain.Policy{
				Attempts: c.Retry.Attempts, Backoff: c.Retry.Backoff, MaxRetryAfter: c.Retry.MaxRetryAfter,
				AllowContentFilterFallback: c.AllowContentFilterFallback,
			},
		}
		ch.Observer = append(slices.Clone(b.observers), b.feed.observer(""))
		for _, name := range c.Providers {
			p := g.cfg.Provider(name)
			in, err := b.sup.Instance(name)
			if p == nil || err != nil {
				return fmt.Errorf("chain %s: no provider %q", c.Name, name)
			}
			ch.Hops = append(ch.Hops, hopOf(p, in, g.media))
		}
		if err := ch.Validate(); err != nil {
			return err
		}
		g.chains[c.Name] = ch
		g.order = append(g.order, c.Name)
	}
	return nil
}

// Supervisor exposes the plugin instances (for `axon check` and tests).
func (b *Daemon) Supervisor() *supervisor.Supervisor { return b.sup }

// Chain returns the chain for a model name: "CHAIN" or "CHAIN/PROVIDER".
func (b *Daemon) Chain(model string) (*chain.Chain, error) { return lookup(b.current().chains, model) }

func lookup(chains map[string]*chain.Chain, model string) (*chain.Chain, error) {
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
	if g := b.current(); g != nil {
		g.closeRouters()
	}
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
func (b *Daemon) Prices() *usage.Prices { return b.current().prices }

// haltDisplays puts panels to sleep on the way out (E-Ink keeps its last
// image; a sleeping panel draws no current).
func (b *Daemon) haltDisplays() {
	for _, d := range b.current().cfg.Displays {
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
