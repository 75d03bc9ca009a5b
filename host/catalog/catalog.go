package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/usage"
	"github.com/axonhq/axon/sdk"
)

// Catalog is the entries of one configuration: its provider blocks over
// the store's answers and the built-in tables. The configuration's part is
// fixed at New; the answers are read from the store at each Entry, so an
// answer learned later shows at once. It is safe for concurrent use.
type Catalog struct {
	order  []string
	blocks map[string]block
	prices *usage.Prices
	store  *Store
}

// block is what the catalog needs of a provider block.
type block struct {
	name, plugin, model string
	digest              string // Digest
	window              int64
	prefill             *bool
}

// New is the catalog of cfg's provider blocks, priced by prices (nil: no
// prices), with the plugins' answers in store (nil: none).
func New(cfg *config.Config, prices *usage.Prices, store *Store) *Catalog {
	if store == nil {
		store, _ = OpenStore("")
	}
	c := &Catalog{blocks: map[string]block{}, prices: prices, store: store}
	for _, p := range cfg.Providers {
		c.order = append(c.order, p.Name)
		c.blocks[p.Name] = block{name: p.Name, plugin: p.Plugin, model: p.Model(), digest: Digest(p),
			window: int64(p.ContextWindow), prefill: p.Prefill}
	}
	return c
}

// Digest names a provider block as far as its plugin's answer depends on
// it (plugin, preset, base URL, model), without holding any of them: the
// store's file has the digest, never a URL that might carry a secret.
func Digest(p *config.Provider) string {
	h := sha256.Sum256([]byte(strings.Join([]string{p.Plugin, p.Preset, p.BaseURL(), p.Model()}, "\x00")))
	return hex.EncodeToString(h[:12])
}

// Learn records the answer of provider's plugin: its Models answer and its
// Info's prefill (nil when not asked). It is Store.Learn under the block's
// digest; a provider the catalog does not have is refused.
func (c *Catalog) Learn(provider string, models []sdk.Model, prefill *bool, at time.Time) error {
	b, ok := c.blocks[provider]
	if !ok {
		return fmt.Errorf("catalog: no provider block %q", provider)
	}
	a := Answer{Prefill: prefill, At: at.UTC()}
	for _, m := range models {
		a.Models = append(a.Models, Model{ID: m.ID, ContextWindow: m.ContextWindow, MaxOutputTokens: m.MaxOutputTokens})
	}
	return c.store.Learn(provider, b.digest, a)
}

// Entries are the entries of every provider block, in configuration order.
func (c *Catalog) Entries() []Entry {
	out := make([]Entry, 0, len(c.order))
	for _, name := range c.order {
		e, _ := c.Entry(name)
		out = append(out, e)
	}
	return out
}

// noTools are the plugins that never answer with a tool call: a
// command-line client answers in text only (plugins/provider-cli).
var noTools = map[string]bool{config.PluginCLI: true}

// Entry is what the catalog says of the model provider serves; false when
// there is no such provider block. Each fact is the block's own, else its
// plugin's last answer, else the built-in tables'.
func (c *Catalog) Entry(provider string) (Entry, bool) {
	b, ok := c.blocks[provider]
	if !ok {
		return Entry{}, false
	}
	e := Entry{Provider: b.name, Model: b.model}
	if e.Model != "" {
		e.from("model", SourceConfig)
	}
	a, answered := c.store.answer(b.name, b.digest)
	var pm *Model // the plugin's facts of the model
	if answered {
		if e.Model == "" && len(a.Models) == 1 {
			e.Model = a.Models[0].ID
			e.from("model", SourcePlugin)
		}
		for i := range a.Models {
			if a.Models[i].ID == e.Model {
				pm = &a.Models[i]
			}
		}
		if pm == nil && e.Model != "" && len(a.Models) > 0 {
			e.Unservable = fmt.Sprintf("its plugin (%s) no longer lists model %q; it lists %s", b.plugin, e.Model, listed(a.Models))
		}
	}
	lim, inTable := findLimit(e.Model)
	switch {
	case b.window > 0:
		e.ContextWindow = b.window
		e.from("context_window", SourceConfig)
	case pm != nil && pm.ContextWindow > 0:
		e.ContextWindow = pm.ContextWindow
		e.from("context_window", SourcePlugin)
	case inTable:
		e.ContextWindow = lim.context
		e.from("context_window", SourceTable)
	}
	switch {
	case pm != nil && pm.MaxOutputTokens > 0:
		e.MaxOutputTokens = pm.MaxOutputTokens
		e.from("max_output_tokens", SourcePlugin)
	case inTable:
		e.MaxOutputTokens = lim.out
		e.from("max_output_tokens", SourceTable)
	}
	if c.prices != nil {
		pr, basis := c.prices.Lookup(b.name, e.Model)
		e.Price = Price{InputPerMTok: pr.Input, OutputPerMTok: pr.Output, CacheReadPerMTok: pr.CacheRead, CacheWritePerMTok: pr.CacheWrite}
		switch basis {
		case usage.BasisPricing, usage.BasisTier:
			e.from("price", SourceConfig)
		case usage.BasisTable:
			e.from("price", SourceTable)
		}
	}
	switch {
	case noTools[b.plugin]:
		e.Tools = new(false)
		e.from("tools", SourceTable)
	case inTable:
		e.Tools = new(lim.tools)
		e.from("tools", SourceTable)
	}
	switch {
	case b.prefill != nil:
		e.Prefill = new(*b.prefill)
		e.from("prefill", SourceConfig)
	case answered && a.Prefill != nil:
		e.Prefill = new(*a.Prefill)
		e.from("prefill", SourcePlugin)
	}
	return e, true
}

// listed names the models of an answer, at most a few.
func listed(ms []Model) string {
	const most = 8
	ids := make([]string, 0, min(len(ms), most))
	for _, m := range ms[:min(len(ms), most)] {
		ids = append(ids, fmt.Sprintf("%q", m.ID))
	}
	s := strings.Join(ids, ", ")
	if len(ms) > most {
		s += fmt.Sprintf(" and %d more", len(ms)-most)
	}
	return s
}
