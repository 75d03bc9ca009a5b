package daemon

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/api"
	"github.com/axonhq/axon/host/panel"
	"github.com/axonhq/axon/host/routing"
	"github.com/axonhq/axon/host/usage"
	"github.com/axonhq/axon/sdk"
)

// panelSource is the front door as the panel sees it (panel.Source).
type panelSource struct{ f *FrontDoor }

var _ panel.Source = panelSource{}

func (s panelSource) Roster(ctx context.Context) panel.Roster {
	d := s.f.daemon
	cfg := d.Config()
	r := panel.Roster{Billing: cfg.Axon.Billing.Enabled, Config: cfg.Source.String(), Editable: editablePath(cfg) != "",
		Providers: []panel.Provider{}, Chains: []panel.Chain{}, Displays: []panel.Display{}}
	spend, _ := d.opts.Usage.(routing.Spend)
	month := usage.MonthStart(time.Now())
	for _, p := range cfg.Providers {
		pp := panel.Provider{
			Name: p.Name, Plugin: p.Plugin, Model: p.Model(), Tier: string(p.Tier), GoodAt: p.GoodAt, Enabled: p.Enabled,
			Gate: cfg.Gate(p), LastError: d.feed.lastError(p.Name),
			Pricing: panel.Pricing{Input: p.Pricing.InputPerMTok, Output: p.Pricing.OutputPerMTok, CacheRead: p.Pricing.CacheReadPerMTok, CacheWrite: p.Pricing.CacheWritePerMTok},
		}
		if !p.Credential.IsZero() {
			pp.Credential = p.Credential.String() // the reference, never the value
		}
		if p.Budget != nil {
			usd := p.Budget.USDPerMonth
			pp.BudgetUSD = &usd
		}
		if spend != nil {
			if usd, err := spend.SpendSince(ctx, p.Name, month); err == nil {
				pp.SpendUSD = &usd
			}
		}
		pp.Sandbox, pp.State = d.pluginState(p.Name)
		r.Providers = append(r.Providers, pp)
	}
	for _, c := range cfg.Chains {
		pc := panel.Chain{Name: c.Name, Providers: append([]string{}, c.Providers...), Strategy: string(c.Strategy)}
		if c.Classifier != nil {
			pc.Classifier, pc.ClassifierTimeout = c.Classifier.Provider, c.Classifier.Timeout.String()
		}
		r.Chains = append(r.Chains, pc)
	}
	for _, disp := range cfg.Displays {
		pd := panel.Display{Name: disp.Name, Plugin: disp.Plugin}
		pd.Sandbox, pd.State = d.pluginState(disp.Name)
		r.Displays = append(r.Displays, pd)
	}
	return r
}

// pluginState is an instance's sandbox layers and whether its process runs.
func (b *Daemon) pluginState(name string) (sandbox, state string) {
	in, err := b.sup.Instance(name)
	if err != nil {
		return "", "not registered"
	}
	if in.Pid() > 0 {
		return in.Layers().String(), "running"
	}
	return in.Layers().String(), "stopped"
}

func (s panelSource) Turns() []panel.Turn { return s.f.daemon.feed.snapshotTurns() }

func (s panelSource) Faces() []panel.Face {
	cfg := s.f.daemon.Config()
	names := make([]string, 0, len(cfg.Displays))
	for _, d := range cfg.Displays {
		names = append(names, d.Name)
	}
	return s.f.daemon.feed.snapshotFaces(names)
}

func (s panelSource) Watch(ctx context.Context) <-chan panel.Update {
	return s.f.daemon.feed.watch(ctx)
}

func (s panelSource) Stats(ctx context.Context, since, by string) (any, error) {
	return statsBackend{Daemon: s.f.daemon, store: s.f.store}.Stats(ctx, since, by)
}

// Try runs prompt on the chain as the panel's turn: the same chain, gates
// and trail as a front door request, recorded as usage.SourcePanel.
func (s panelSource) Try(ctx context.Context, chainName, prompt string, delta func(string)) (panel.TryResult, error) {
	t, ok := s.f.daemon.Resolve(chainName)
	if !ok {
		return panel.TryResult{}, fmt.Errorf("%w: %q", errNoChain, chainName)
	}
	req := &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: prompt}}}}}
	sink := sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error {
		if ev.Type == sdk.EventTextDelta && ev.Text != "" {
			delta(ev.Text)
		}
		return nil
	})
	ans, err := t.Generate(context.WithValue(ctx, sourceKey{}, usage.SourcePanel), req, sink, func(api.Answer) {}, api.Streamed)
	res := panel.TryResult{}
	if ans != nil {
		res = panel.TryResult{Provider: ans.Provider, Model: ans.Model, Trail: ans.Trail}
	}
	return res, err
}

func (s panelSource) Config() (string, []byte, error) {
	path := editablePath(s.f.daemon.Config())
	if path == "" {
		return "", nil, nil
	}
	src, err := os.ReadFile(path)
	return path, src, err
}

func (s panelSource) Reload(ctx context.Context) (panel.ReloadResult, error) {
	res, err := s.f.Reload(ctx)
	return panel.ReloadResult{Started: res.Started, Stopped: res.Stopped, Kept: res.Kept, Pending: res.Pending}, err
}

// editablePath is the file the knobs may write: the configuration's own
// file, "" for the built-in default, $AXON_CHAIN and text.
func editablePath(cfg *config.Config) string {
	switch cfg.Source.Kind {
	case config.SourceFlag, config.SourceEnv, config.SourceUser:
		return cfg.Source.Path
	}
	return ""
}
