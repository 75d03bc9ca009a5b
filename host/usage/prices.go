package usage

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/sdk"
)

// Price is USD per million tokens of each count. A nil price is unknown,
// never zero. The pointers may be shared with the table: read them, never
// write through them.
type Price struct {
	Input, Output, CacheRead, CacheWrite *float64
}

// Cost prices u: nil when u reports no count, or reports one whose price
// is unknown, so an unpriced turn never looks free. A count u does not
// report adds nothing.
func (p Price) Cost(u sdk.Usage) *float64 {
	var usd float64
	reported := false
	for _, c := range [...]struct {
		n     *int64
		price *float64
	}{{u.InputTokens, p.Input}, {u.OutputTokens, p.Output}, {u.CacheReadTokens, p.CacheRead}, {u.CacheWriteTokens, p.CacheWrite}} {
		if c.n == nil {
			continue
		}
		if c.price == nil {
			return nil
		}
		reported = true
		usd += float64(*c.n) * *c.price / 1e6
	}
	if !reported {
		return nil
	}
	return &usd
}

// over lays the prices o knows over p.
func (p Price) over(o Price) Price {
	pick := func(a, b *float64) *float64 {
		if a != nil {
			return a
		}
		return b
	}
	return Price{pick(o.Input, p.Input), pick(o.Output, p.Output), pick(o.CacheRead, p.CacheRead), pick(o.CacheWrite, p.CacheWrite)}
}

func (p Price) known() bool {
	return p.Input != nil || p.Output != nil || p.CacheRead != nil || p.CacheWrite != nil
}

func priceOf(p config.Pricing) Price {
	return Price{p.InputPerMTok, p.OutputPerMTok, p.CacheReadPerMTok, p.CacheWritePerMTok}
}

// Basis is where a price came from.
type Basis string

const (
	BasisUnknown Basis = ""        // no price: the cost is absent
	BasisPricing Basis = "pricing" // the provider block's pricing {} (over the table row, when there is one)
	BasisTable   Basis = "table"   // a row of the built-in price table
	// BasisTier: the provider's tier is "local" or "sub", whose tokens
	// cost nothing each (the hardware or the subscription is paid either
	// way), so every price is zero.
	BasisTier Basis = "tier"
)

// Reference is the price cost avoided is measured against.
type Reference struct {
	Name  string // "anthropic/claude-opus-4-5", or "reference_pricing" for prices of the file's own
	Price Price
}

// DefaultReference is the table row cost avoided is measured against when
// the configuration names none: a frontier model.
const DefaultReference = "anthropic/claude-opus-4-5"

// Prices prices the turns of one configuration: the built-in table,
// overlaid by each provider block's pricing {}, and the reference. It is
// immutable, so one value serves concurrent calls.
type Prices struct {
	providers map[string]provider
	ref       Reference
}

// provider is what pricing needs of a provider block.
type provider struct {
	tier    config.Tier
	vendor  string // the price table's vendor; "" when none applies
	pricing Price  // the block's pricing {}
}

// NewPrices reads cfg's providers and reference pricing. It fails when
// reference_pricing names a model the table does not have.
func NewPrices(cfg *config.Config) (*Prices, error) {
	ps := &Prices{providers: map[string]provider{}}
	for _, p := range cfg.Providers {
		ps.providers[p.Name] = provider{tier: p.Tier, vendor: vendorOf(p), pricing: priceOf(p.Pricing)}
	}
	ref := cfg.Axon.ReferencePricing
	own := priceOf(ref.Pricing)
	switch {
	case ref.Model != "":
		r, ok := lookupRow(ref.Model)
		if !ok {
			return nil, fmt.Errorf("%s: reference_pricing: model %q is not in the price table; name one of %s, or give its prices", ref.ModelRange, ref.Model, strings.Join(referenceNames(), ", "))
		}
		ps.ref = Reference{Name: r.vendor + "/" + r.model, Price: r.price().over(own)}
		if own.known() {
			ps.ref.Name += " (with reference_pricing's prices)"
		}
	case own.known():
		ps.ref = Reference{Name: "reference_pricing", Price: own}
	default:
		r, _ := lookupRow(DefaultReference)
		ps.ref = Reference{Name: DefaultReference, Price: r.price()}
	}
	return ps, nil
}

// Reference returns the price cost avoided is measured against.
func (ps *Prices) Reference() Reference { return ps.ref }

// Tier is the tier of the provider block named provider; TierUnset when
// there is none.
func (ps *Prices) Tier(provider string) config.Tier { return ps.providers[provider].tier }

// Lookup prices model (the model that answered, else the one configured)
// on the provider block named provider: its pricing {} over the table row;
// else zero when its tier is local or sub; else the table row; else
// nothing known (BasisUnknown, every price nil).
func (ps *Prices) Lookup(provider, model string) (Price, Basis) {
	pv := ps.providers[provider]
	row, hasRow := findRow(pv.vendor, model)
	switch {
	case pv.pricing.known():
		return row.price().over(pv.pricing), BasisPricing
	case pv.tier == config.TierLocal || pv.tier == config.TierSub:
		return zeroPrice, BasisTier
	case hasRow:
		return row.price(), BasisTable
	}
	return Price{}, BasisUnknown
}

// vendorOf is the price table vendor of a provider block: its preset's,
// else that of the preset whose base_url host it shares, else none (a
// server of your own bills nothing the table knows).
func vendorOf(p *config.Provider) string {
	if p.Preset != "" {
		return presetVendor[p.Preset]
	}
	host := hostOf(p.BaseURL())
	if host == "" {
		return ""
	}
	for _, pr := range config.Presets() {
		if hostOf(pr.BaseURL) == host {
			return presetVendor[pr.Name]
		}
	}
	return ""
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// presetVendor maps a preset to the vendor of its price table rows. The
// presets missing here have no per-token list price: ollama is local,
// github (GitHub Models) and nvidia (build.nvidia.com) bill free tiers and
// credits, not tokens at a published rate.
var presetVendor = map[string]string{
	"openai":        "openai",
	"anthropic":     "anthropic",
	"glm":           "zai",
	"openrouter":    vendorOpenRouter,
	"groq":          "groq",
	"cerebras":      "cerebras",
	"mistral":       "mistral",
	"gemini":        "google",
	"gemini-native": "google",
	"deepseek":      "deepseek",
	"xai":           "xai",
}

// vendorOpenRouter names models "VENDOR/MODEL" and bills the vendor's own
// list price (openrouter.ai/docs/faq, "pricing", as published in 2025).
const vendorOpenRouter = "openrouter"

var openRouterVendors = map[string]string{
	"openai": "openai", "anthropic": "anthropic", "google": "google", "mistralai": "mistral",
	"deepseek": "deepseek", "x-ai": "xai", "z-ai": "zai",
}

// findRow is the table row of vendor for model. A row matches the model
// itself and the model with a date or "-latest" after it
// ("claude-sonnet-4-5-20250929", "gpt-4o-2024-08-06",
// "mistral-small-latest"), never a longer name ("gpt-5-pro" is not
// "gpt-5"); "." and "-" are the same ("claude-sonnet-4.5"), case is
// ignored, and a "models/" prefix is dropped.
func findRow(vendor, model string) (row, bool) {
	m := normModel(model)
	if vendor == vendorOpenRouter {
		v, rest, ok := strings.Cut(m, "/")
		if !ok {
			return row{}, false
		}
		vendor, m = openRouterVendors[v], rest
	}
	if vendor == "" || m == "" {
		return row{}, false
	}
	best, bestLen, found := row{}, 0, false
	for _, r := range byVendor[vendor] {
		if rest, ok := strings.CutPrefix(m, r.norm); ok && len(r.norm) > bestLen && versionSuffix.MatchString(rest) {
			best, bestLen, found = r.row, len(r.norm), true
		}
	}
	return best, found
}

// normRow is a table row with its model name normalised for findRow.
type normRow struct {
	row
	norm string
}

var zero = 0.0

// zeroPrice is every count free: the tiers paid for either way.
var zeroPrice = Price{&zero, &zero, &zero, &zero}

// byVendor is the table by vendor, built once from it and never changed.
var byVendor = func() map[string][]normRow {
	m := map[string][]normRow{}
	for _, r := range table {
		m[r.vendor] = append(m[r.vendor], normRow{r, normModel(r.model)})
	}
	return m
}()

// versionSuffix is what may follow a row's model name in the name a
// provider reports, normalised: nothing, "-latest", or a date or build
// number ("-20250929", "-2024-08-06", "-0613", "-2507").
var versionSuffix = regexp.MustCompile(`^(-latest|-[0-9]{4,}(-[0-9]{2}){0,2})?$`)

func normModel(m string) string {
	m = strings.ToLower(strings.TrimSpace(m))
	m = strings.TrimPrefix(m, "models/")
	return strings.ReplaceAll(m, ".", "-")
}

// lookupRow finds a reference model: "VENDOR/MODEL", or "MODEL" when one
// vendor alone lists it.
func lookupRow(name string) (row, bool) {
	if vendor, model, ok := strings.Cut(name, "/"); ok {
		if r, found := findRow(vendor, model); found {
			return r, true
		}
	}
	var hit []row
	for _, r := range table {
		if normModel(r.model) == normModel(name) {
			hit = append(hit, r)
		}
	}
	if len(hit) != 1 {
		return row{}, false
	}
	return hit[0], true
}

// referenceNames lists a few rows worth measuring against, for an error.
func referenceNames() []string {
	return []string{DefaultReference, "anthropic/claude-sonnet-4-5", "openai/gpt-5", "google/gemini-2.5-pro"}
}
