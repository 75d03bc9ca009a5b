package config

import (
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// validate checks what no single block can: unique names, chain
// references, and plugin pins that cannot all hold.
func (r *reader) validate(cfg *Config, body hcl.Body) {
	type named struct {
		name string
		rng  hcl.Range
	}
	unique := func(kind string, items []named) {
		first := map[string]hcl.Range{}
		for _, it := range items {
			if prev, dup := first[it.name]; dup {
				r.errorf(it.rng, "Duplicate "+kind+" name", "A %s named %q is already defined at %s. Names must be unique within each kind of block.", kind, it.name, prev)
				continue
			}
			first[it.name] = it.rng
		}
	}
	var providers, chains, tools, displays []named
	for _, p := range cfg.Providers {
		providers = append(providers, named{p.Name, p.DefRange})
	}
	for _, c := range cfg.Chains {
		chains = append(chains, named{c.Name, c.DefRange})
	}
	for _, t := range cfg.Tools {
		tools = append(tools, named{t.Name, t.DefRange})
	}
	for _, d := range cfg.Displays {
		displays = append(displays, named{d.Name, d.DefRange})
	}
	unique("provider", providers)
	unique("chain", chains)
	unique("tool", tools)
	unique("display", displays)

	r.validateChains(cfg, body)
	r.validatePins(cfg)
	r.validateRouting(cfg)
	r.validateHomes(cfg)
}

func (r *reader) validateChains(cfg *Config, body hcl.Body) {
	var names []string
	for _, p := range cfg.Providers {
		names = append(names, p.Name)
	}
	for _, c := range cfg.Chains {
		seen := map[string]bool{}
		for i, name := range c.Providers {
			rng := c.ProviderRanges[i]
			switch {
			case !slices.Contains(names, name):
				known := "No provider blocks are defined."
				if len(names) > 0 {
					known = "Defined providers: " + strings.Join(names, ", ") + "."
				}
				r.errorf(rng, "Unknown provider", "chain %q refers to provider %q, which is not defined.%s %s", c.Name, name, didYouMean(name, names), known)
			case seen[name]:
				r.errorf(rng, "Duplicate chain entry", "provider %q is already in chain %q; a retry block sets how often one provider is tried.", name, c.Name)
			}
			seen[name] = true
		}
	}
	if len(cfg.Chains) == 0 {
		r.errorf(body.MissingItemRange(), "No chain", "The configuration defines no chain, so no request can be answered. Add one, e.g.\n\n  chain %q {\n    providers = [provider.ollama]\n  }", DefaultChain)
		return
	}
	if cfg.Chain(DefaultChain) == nil {
		r.warnf(cfg.Chains[0].DefRange, "No default chain", "No chain is named %q, so every request must name a chain in its model field.", DefaultChain)
	}
}

// validatePins refuses two different sha256 pins for one binary: no file
// can match both.
func (r *reader) validatePins(cfg *Config) {
	type pin struct {
		sha string
		rng hcl.Range
	}
	pins := map[string]pin{}
	for _, b := range cfg.PluginBlocks() {
		if b.SHA256 == "" || b.Plugin == "" {
			continue
		}
		prev, ok := pins[b.Binary()]
		if !ok {
			pins[b.Binary()] = pin{b.SHA256, b.DefRange}
			continue
		}
		if prev.sha != b.SHA256 {
			r.errorf(b.DefRange, "Conflicting sha256 pins", "%s is pinned to a different sha256 at %s; one binary cannot match both.", b.Binary(), prev.rng)
		}
	}
}
