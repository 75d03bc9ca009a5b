package daemon

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/api"
	"github.com/axonhq/axon/host/catalog"
	"github.com/axonhq/axon/host/session"
)

// learnTimeout bounds one question to a running plugin (Models and Info).
const learnTimeout = 2 * time.Second

// CatalogPath is where the plugins' last answers of cfg are kept:
// <state_dir>/catalog.json; "" (in memory only) without a state directory.
func CatalogPath(cfg *config.Config) string {
	if cfg.Axon.StateDir == "" {
		return ""
	}
	return filepath.Join(cfg.Axon.StateDir, catalog.FileName)
}

// learner asks each provider plugin of the catalog about itself once per
// process it runs, and only when it runs: the catalog never starts a
// plugin (see host/catalog).
type learner struct {
	store *catalog.Store
	log   hclog.Logger
	mu    sync.Mutex
	asked map[string]int // provider block → pid of the process asked
}

func newLearner(cfg *config.Config, log hclog.Logger) *learner {
	store, err := catalog.OpenStore(CatalogPath(cfg))
	if err != nil {
		log.Warn("the model catalog's file is ignored: the plugins' facts are learned again", "error", err)
	}
	return &learner{store: store, log: log.Named("catalog"), asked: map[string]int{}}
}

// first reports whether the process pid of provider is yet to be asked,
// and counts it asked.
func (l *learner) first(provider string, pid int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.asked[provider] == pid {
		return false
	}
	l.asked[provider] = pid
	return true
}

func (l *learner) forget(provider string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.asked, provider)
}

// learn asks provider's plugin for its models and its prefill when its
// process runs and was not asked yet, and records the answer in g's
// catalog (and so in the store's file). A plugin that does not answer
// in time keeps its last answer; it is asked again next time.
func (b *Daemon) learn(ctx context.Context, g *generation, provider string) {
	in, err := b.sup.Instance(provider)
	if err != nil {
		return
	}
	pid := in.Pid()
	if pid == 0 || !b.learner.first(provider, pid) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, learnTimeout)
	defer cancel()
	models, err := in.Models(ctx)
	if err != nil {
		b.learner.forget(provider)
		b.learner.log.Debug("a provider plugin did not list its models; its last answer stands", "provider", provider, "error", err)
		return
	}
	var prefill *bool
	if info, err := in.Info(ctx); err == nil {
		prefill = &info.Prefill
	}
	if err := g.catalog.Learn(provider, models, prefill, time.Now()); err != nil {
		b.learner.log.Warn("a provider plugin's answer was not kept", "provider", provider, "error", err)
	}
}

// sessionCatalog is the daemon as the sessions' catalog: the entries of
// the configuration new requests run on, after asking the block's plugin
// when it runs.
type sessionCatalog struct{ b *Daemon }

var _ session.Catalog = sessionCatalog{}

func (c sessionCatalog) Model(ctx context.Context, provider string) (session.ModelFacts, error) {
	g := c.b.current()
	c.b.learn(ctx, g, provider)
	e, ok := g.catalog.Entry(provider)
	switch {
	case !ok:
		return session.ModelFacts{}, fmt.Errorf("provider block %q is not in the configuration", provider)
	case e.Unservable != "":
		return session.ModelFacts{}, errors.New(e.Unservable)
	}
	p := e.Price
	return session.ModelFacts{
		Provider: e.Provider, Model: e.Model, ContextWindow: e.ContextWindow, MaxOutputTokens: e.MaxOutputTokens,
		Price: session.Price{InputPerMTok: p.InputPerMTok, OutputPerMTok: p.OutputPerMTok, CacheReadPerMTok: p.CacheReadPerMTok, CacheWritePerMTok: p.CacheWritePerMTok},
		Tools: e.Tools, Prefill: e.Prefill,
	}, nil
}

// Catalog is the model catalog of the configuration new requests run on.
func (b *Daemon) Catalog() *catalog.Catalog { return b.current().catalog }

// modelFacts is e as GET /v1/models shows it.
func modelFacts(e catalog.Entry) *api.ModelFacts {
	f := &api.ModelFacts{
		ContextWindow: e.ContextWindow, MaxOutputTokens: e.MaxOutputTokens,
		Price: api.ModelPrice{Input: e.Price.InputPerMTok, Output: e.Price.OutputPerMTok, CacheRead: e.Price.CacheReadPerMTok, CacheWrite: e.Price.CacheWritePerMTok},
		Tools: e.Tools, Prefill: e.Prefill, Unservable: e.Unservable, Sources: map[string]string{},
	}
	for k, v := range e.Sources {
		f.Sources[k] = string(v)
	}
	return f
}
