package panel

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
)

// Editor writes knob edits into the configuration file, keeping its
// comments and layout. The daemon wires hcl/edit in; tests use a fake.
type Editor interface {
	// Edit applies edits to src (the file at path as it is now),
	// validates the result as axon check would and, only when it is
	// valid, writes it to path, keeping a backup of the old file. When the
	// outcome has Diagnostics nothing was written; an error is a failure
	// to edit or write, not a refusal of the edits.
	Edit(ctx context.Context, path string, src []byte, edits []EditRequest) (EditOutcome, error)
}

// EditRequest is one knob's new value.
type EditRequest struct {
	Block string `json:"block"`          // "provider", "chain" or "billing"
	Name  string `json:"name,omitempty"` // the block's label; "" for billing
	// Field is one of enabled, tier, good_at, budget, pricing.input,
	// pricing.output, pricing.cache_read, pricing.cache_write (provider);
	// providers, strategy, classifier (chain); enabled (billing).
	Field string `json:"field"`
	// Value is the new value as JSON; null removes the attribute (its
	// default applies; for classifier, the classifier is off).
	Value json.RawMessage `json:"value"`
}

// Knob is the edit's name in the page: "provider.glm.tier",
// "chain.default.providers", "billing.enabled".
func (e EditRequest) Knob() string { return knobName(e.Block, e.Name, e.Field) }

// EditOutcome is how an Edit ended.
type EditOutcome struct {
	// Diagnostics say why the edits were refused; when there are any the
	// file was not written.
	Diagnostics []Diagnostic
	// Backup is the path of the previous file's copy, when written.
	Backup string
}

// Diagnostic is one reason an edit was refused, mapped to its knob when
// it has one (Block "" for one about the file as a whole).
type Diagnostic struct {
	Block   string `json:"block,omitempty"`
	Name    string `json:"name,omitempty"`
	Field   string `json:"field,omitempty"`
	Summary string `json:"summary"`
	Detail  string `json:"detail,omitempty"`
}

func knobName(block, name, field string) string {
	switch {
	case block == "":
		return ""
	case block == "billing":
		return "billing." + field
	}
	return block + "." + name + "." + field
}

// diagView is a Diagnostic as the page reads it, with its knob's name.
type diagView struct {
	Knob string `json:"knob"`
	Diagnostic
}

func diagViews(ds []Diagnostic) []diagView {
	out := make([]diagView, len(ds))
	for i, d := range ds {
		out[i] = diagView{knobName(d.Block, d.Name, d.Field), d}
	}
	return out
}

// configView is GET /panel/api/config: the knobs' values now.
type configView struct {
	Editable bool   `json:"editable"`
	Reason   string `json:"reason,omitempty"` // why not, when not editable
	Config   string `json:"config"`
	Billing  bool   `json:"billing"`
	// Providers carry only their knobs; Chains are Roster's.
	Providers  []providerKnobs `json:"providers"`
	Chains     []Chain         `json:"chains"`
	Tiers      []string        `json:"tiers"`
	Strategies []string        `json:"strategies"`
}

type providerKnobs struct {
	Name      string   `json:"name"`
	Enabled   *bool    `json:"enabled"`
	Tier      string   `json:"tier"`
	GoodAt    []string `json:"good_at"`
	BudgetUSD *float64 `json:"budget"`
	Pricing   Pricing  `json:"pricing"`
}

var (
	tiers      = []string{"local", "sub", "api"}
	strategies = []string{"ordered", "rotate", "lowest_latency", "lowest_cost"}
)

// maxEdits bounds one save.
const maxEdits = 256

func (p *panel) getConfig(w http.ResponseWriter, r *http.Request) {
	ro := p.src.Roster(r.Context())
	v := configView{Editable: ro.Editable && p.editor != nil, Config: ro.Config, Billing: ro.Billing,
		Providers: []providerKnobs{}, Chains: nonNil(ro.Chains), Tiers: tiers, Strategies: strategies}
	v.Reason = p.readOnlyReason(ro)
	for _, pr := range ro.Providers {
		v.Providers = append(v.Providers, providerKnobs{Name: pr.Name, Enabled: pr.Enabled, Tier: pr.Tier,
			GoodAt: nonNil(pr.GoodAt), BudgetUSD: pr.BudgetUSD, Pricing: pr.Pricing})
	}
	writeJSON(w, http.StatusOK, v)
}

func (p *panel) readOnlyReason(ro Roster) string {
	switch {
	case !ro.Editable:
		return fmt.Sprintf("The daemon runs %s, not a configuration file the panel can edit: start it with a configuration file to change these here.", ro.Config)
	case p.editor == nil:
		return "This daemon was started without the configuration editor, so the knobs are read-only."
	}
	return ""
}

// postConfig is POST /panel/api/config {"edits":[…]}: validate, hand to
// the Editor, and reload when it wrote the file.
func (p *panel) postConfig(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Edits []EditRequest `json:"edits"`
	}
	if !decodeJSON(w, r, &req) {
		return
	}
	if len(req.Edits) == 0 || len(req.Edits) > maxEdits {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("edits: want 1 to %d edits", maxEdits))
		return
	}
	ctx := r.Context()
	ro := p.src.Roster(ctx)
	if reason := p.readOnlyReason(ro); reason != "" {
		writeError(w, http.StatusConflict, reason)
		return
	}
	var diags []Diagnostic
	for i, e := range req.Edits {
		if msg := checkTarget(ro, e); msg != "" {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("edits[%d]: %s", i, msg))
			return
		}
		if msg := checkValue(ro, e); msg != "" {
			diags = append(diags, Diagnostic{Block: e.Block, Name: e.Name, Field: e.Field, Summary: msg})
		}
	}
	if len(diags) > 0 {
		refuse(w, diags)
		return
	}

	p.editMu.Lock()
	defer p.editMu.Unlock()
	path, src, err := p.src.Config()
	if err != nil {
		p.log.Error("read the configuration to edit", "error", err)
		writeError(w, http.StatusInternalServerError, "read the configuration: "+err.Error())
		return
	}
	if path == "" {
		writeError(w, http.StatusConflict, "the daemon runs no configuration file the panel can edit")
		return
	}
	out, err := p.editor.Edit(ctx, path, src, req.Edits)
	if err != nil {
		p.log.Error("edit the configuration", "path", path, "error", err)
		writeError(w, http.StatusInternalServerError, "edit "+path+": "+err.Error())
		return
	}
	if len(out.Diagnostics) > 0 {
		refuse(w, out.Diagnostics)
		return
	}
	p.log.Info("knobs written", "path", path, "backup", out.Backup, "edits", len(req.Edits))
	res, err := p.src.Reload(ctx)
	if err != nil {
		p.log.Error("reload after a knob edit", "path", path, "error", err)
		writeJSON(w, http.StatusInternalServerError, struct {
			errorBody
			Backup string `json:"backup,omitempty"`
		}{errorBody: errorMessage(fmt.Sprintf("%s was written (backup %s) but the reload failed: %v", path, out.Backup, err)), Backup: out.Backup})
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Reload ReloadResult `json:"reload"`
		Backup string       `json:"backup,omitempty"`
		Path   string       `json:"path"`
	}{res, out.Backup, path})
}

func errorMessage(msg string) errorBody {
	var e errorBody
	e.Error.Message = msg
	return e
}

// refuse answers 422 with the diagnostics next to their knobs.
func refuse(w http.ResponseWriter, ds []Diagnostic) {
	writeJSON(w, http.StatusUnprocessableEntity, struct {
		errorBody
		Diagnostics []diagView `json:"diagnostics"`
	}{errorMessage("the edits were refused; nothing was written"), diagViews(ds)})
}

// providerFields and chainFields are the knobs of each block.
var (
	providerFields = []string{"enabled", "tier", "good_at", "budget", "pricing.input", "pricing.output", "pricing.cache_read", "pricing.cache_write"}
	chainFields    = []string{"providers", "strategy", "classifier"}
)

// checkTarget says what is wrong with the edit's block, name and field
// (a malformed request), "" when they name a knob.
func checkTarget(ro Roster, e EditRequest) string {
	switch e.Block {
	case "provider":
		if !slices.ContainsFunc(ro.Providers, func(p Provider) bool { return p.Name == e.Name }) {
			return fmt.Sprintf("no provider %q", e.Name)
		}
		if !slices.Contains(providerFields, e.Field) {
			return fmt.Sprintf("a provider has no knob %q (knobs: %s)", e.Field, strings.Join(providerFields, ", "))
		}
	case "chain":
		if !slices.ContainsFunc(ro.Chains, func(c Chain) bool { return c.Name == e.Name }) {
			return fmt.Sprintf("no chain %q", e.Name)
		}
		if !slices.Contains(chainFields, e.Field) {
			return fmt.Sprintf("a chain has no knob %q (knobs: %s)", e.Field, strings.Join(chainFields, ", "))
		}
	case "billing":
		if e.Name != "" || e.Field != "enabled" {
			return "billing has one knob, enabled, and no name"
		}
	default:
		return fmt.Sprintf("block %q: want provider, chain or billing", e.Block)
	}
	return ""
}

// checkValue says what is wrong with the edit's value, "" when it has the
// knob's type; the Editor checks the rest as axon check does.
func checkValue(ro Roster, e EditRequest) string {
	v := bytes.TrimSpace(e.Value)
	null := len(v) == 0 || string(v) == "null"
	switch {
	case e.Field == "enabled":
		var b bool
		if (null && e.Block == "billing") || (!null && json.Unmarshal(v, &b) != nil) {
			return "want true or false"
		}
	case e.Field == "tier":
		var s string
		if !null && (json.Unmarshal(v, &s) != nil || !slices.Contains(tiers, s)) {
			return "want local, sub or api"
		}
	case e.Field == "good_at":
		var ss []string
		if !null && (json.Unmarshal(v, &ss) != nil || slices.Contains(ss, "")) {
			return "want a list of task names"
		}
	case e.Field == "budget" || strings.HasPrefix(e.Field, "pricing."):
		var f float64
		if !null && (json.Unmarshal(v, &f) != nil || f < 0 || math.IsInf(f, 0)) {
			return "want a number of US dollars, 0 or more"
		}
	case e.Field == "providers":
		var ss []string
		if null || json.Unmarshal(v, &ss) != nil || len(ss) == 0 {
			return "want the chain's providers, one or more, in order"
		}
		for i, s := range ss {
			if !slices.ContainsFunc(ro.Providers, func(p Provider) bool { return p.Name == s }) {
				return fmt.Sprintf("no provider %q", s)
			}
			if slices.Contains(ss[:i], s) {
				return fmt.Sprintf("provider %q is listed twice", s)
			}
		}
	case e.Field == "strategy":
		var s string
		if null || json.Unmarshal(v, &s) != nil || !slices.Contains(strategies, s) {
			return "want " + strings.Join(strategies, ", ")
		}
	case e.Field == "classifier":
		var s string
		if !null && (json.Unmarshal(v, &s) != nil || !slices.ContainsFunc(ro.Providers, func(p Provider) bool { return p.Name == s })) {
			return "want one of the providers, or null for off"
		}
	}
	return ""
}
