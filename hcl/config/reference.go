package config

import "github.com/hashicorp/hcl/v2"

// Reference is the price usage facts measure "cost avoided" against: what
// the same tokens would have cost on it (axon { reference_pricing { … } }).
// Model names a row of host/usage's built-in price table ("" with no
// prices: that package's default, a frontier model); prices written out win
// over the row's, and without a model they are the reference on their own.
type Reference struct {
	Model      string // "MODEL" or "VENDOR/MODEL" of the price table
	Pricing    Pricing
	ModelRange hcl.Range // where model is written, else DefRange
	DefRange   hcl.Range // zero when the axon block has no reference_pricing
}

type rawReference struct {
	Model      hcl.Expression `hcl:"model,optional"`
	Input      hcl.Expression `hcl:"input_per_mtok,optional"`
	Output     hcl.Expression `hcl:"output_per_mtok,optional"`
	CacheRead  hcl.Expression `hcl:"cache_read_per_mtok,optional"`
	CacheWrite hcl.Expression `hcl:"cache_write_per_mtok,optional"`
	DefRange   hcl.Range      `hcl:",def_range"`
}

func (r *reader) reference(raw *rawReference) Reference {
	ref := Reference{DefRange: raw.DefRange, ModelRange: raw.DefRange}
	if s, ok := r.str(raw.Model, "model"); ok {
		ref.Model, ref.ModelRange = s, raw.Model.Range()
	}
	ref.Pricing = r.pricing(&rawPricing{Input: raw.Input, Output: raw.Output, CacheRead: raw.CacheRead, CacheWrite: raw.CacheWrite})
	p := ref.Pricing
	if ref.Model == "" && (p.InputPerMTok == nil || p.OutputPerMTok == nil) {
		r.errorf(raw.DefRange, "Incomplete reference_pricing",
			"reference_pricing needs a model of the price table (model = \"claude-sonnet-4-5\") or input_per_mtok and output_per_mtok.")
	}
	return ref
}

// pricing reads a pricing {} block's prices; an absent one stays nil.
func (r *reader) pricing(raw *rawPricing) Pricing {
	var p Pricing
	p.InputPerMTok, _ = r.float(raw.Input, "input_per_mtok")
	p.OutputPerMTok, _ = r.float(raw.Output, "output_per_mtok")
	p.CacheReadPerMTok, _ = r.float(raw.CacheRead, "cache_read_per_mtok")
	p.CacheWritePerMTok, _ = r.float(raw.CacheWrite, "cache_write_per_mtok")
	return p
}
