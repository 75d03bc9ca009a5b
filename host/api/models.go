package api

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// modelEntry is one model in GET /v1/models. It carries the fields of both
// list formats (OpenAI: object, created, owned_by; Anthropic: type,
// display_name, created_at), so either official client reads the same
// answer, plus axon's own chain, provider and upstream model.
type modelEntry struct {
	ID          string   `json:"id"`
	Object      string   `json:"object"`
	Created     int64    `json:"created"`
	OwnedBy     string   `json:"owned_by"`
	Type        string   `json:"type"`
	DisplayName string   `json:"display_name"`
	CreatedAt   string   `json:"created_at"`
	Chain       string   `json:"chain"`
	Provider    string   `json:"provider,omitempty"`
	Upstream    string   `json:"upstream_model,omitempty"`
	Tier        string   `json:"tier,omitempty"`
	GoodAt      []string `json:"good_at,omitempty"`
	// Routable is false for a provider routing never sends a request to,
	// and Gate says why ("paid": an api tier behind the paid gate;
	// "disabled": enabled = false). Both are absent for a whole chain.
	Routable *bool  `json:"routable,omitempty"`
	Gate     string `json:"gate,omitempty"`
	// The model catalog's facts of a pin's model (host/catalog), absent
	// for a whole chain and for an unknown fact: tokens, USD per million
	// tokens, capabilities, and where each fact came from ("config",
	// "plugin", "table"). Unservable says why the pin's model cannot be
	// served (its plugin no longer lists it).
	ContextWindow   int64             `json:"context_window,omitempty"`
	MaxOutputTokens int64             `json:"max_output_tokens,omitempty"`
	Pricing         *pricingJSON      `json:"pricing,omitempty"`
	Capabilities    *capabilitiesJSON `json:"capabilities,omitempty"`
	Sources         map[string]string `json:"sources,omitempty"`
	Unservable      string            `json:"unservable,omitempty"`
}

// ModelFacts is what the model catalog knows of one pin's model. A zero
// count, a nil price or capability is unknown.
type ModelFacts struct {
	ContextWindow   int64
	MaxOutputTokens int64
	Price           ModelPrice
	Tools, Prefill  *bool
	Unservable      string
	Sources         map[string]string // fact → "config", "plugin" or "table"
}

// ModelPrice is USD per million tokens of each count; nil is unknown.
type ModelPrice struct {
	Input, Output, CacheRead, CacheWrite *float64
}

type pricingJSON struct {
	Input      *float64 `json:"input_per_mtok,omitempty"`
	Output     *float64 `json:"output_per_mtok,omitempty"`
	CacheRead  *float64 `json:"cache_read_per_mtok,omitempty"`
	CacheWrite *float64 `json:"cache_write_per_mtok,omitempty"`
}

type capabilitiesJSON struct {
	Tools   *bool `json:"tools,omitempty"`
	Prefill *bool `json:"prefill,omitempty"`
}

// facts adds f to e.
func (e *modelEntry) facts(f *ModelFacts) {
	if f == nil {
		return
	}
	e.ContextWindow, e.MaxOutputTokens, e.Unservable = f.ContextWindow, f.MaxOutputTokens, f.Unservable
	if p := f.Price; p.Input != nil || p.Output != nil || p.CacheRead != nil || p.CacheWrite != nil {
		e.Pricing = &pricingJSON{p.Input, p.Output, p.CacheRead, p.CacheWrite}
	}
	if f.Tools != nil || f.Prefill != nil {
		e.Capabilities = &capabilitiesJSON{f.Tools, f.Prefill}
	}
	if len(f.Sources) > 0 {
		e.Sources = f.Sources
	}
}

type modelList struct {
	Object  string       `json:"object"`
	Data    []modelEntry `json:"data"`
	HasMore bool         `json:"has_more"`
	FirstID *string      `json:"first_id"`
	LastID  *string      `json:"last_id"`
}

func (s *server) entry(m ModelInfo) modelEntry {
	name := "chain " + m.Chain
	if m.Provider != "" {
		name = fmt.Sprintf("chain %s, provider %s", m.Chain, m.Provider)
		if m.Model != "" {
			name += " (" + m.Model + ")"
		}
	}
	e := modelEntry{
		ID: m.ID, Object: "model", Created: s.started.Unix(), OwnedBy: "axon",
		Type: "model", DisplayName: name, CreatedAt: s.started.UTC().Format(time.RFC3339),
		Chain: m.Chain, Provider: m.Provider, Upstream: m.Model,
		Tier: m.Tier, GoodAt: m.GoodAt, Gate: m.Gate,
	}
	if m.Provider != "" {
		routable := m.Gate == ""
		e.Routable = &routable
		if !routable {
			e.DisplayName += ", not routed: " + gateWhy(m.Gate)
		}
	}
	e.facts(m.Facts)
	return e
}

func (s *server) listModels(w *recorder, r *http.Request) {
	models := s.backend.Models(r.Context())
	list := modelList{Object: "list", Data: make([]modelEntry, 0, len(models))}
	for _, m := range models {
		list.Data = append(list.Data, s.entry(m))
	}
	if n := len(list.Data); n > 0 {
		list.FirstID, list.LastID = &list.Data[0].ID, &list.Data[n-1].ID
	}
	writeJSON(w, http.StatusOK, mustJSON(list))
}

func (s *server) getModel(w *recorder, r *http.Request) {
	id := r.PathValue("id")
	models := s.backend.Models(r.Context())
	for _, m := range models {
		if m.ID == id {
			writeJSON(w, http.StatusOK, mustJSON(s.entry(m)))
			return
		}
	}
	writeError(w, openaiDialect{}, unknownModel(id, models))
}

// gateWhy says in words why a gated provider is never routed.
func gateWhy(gate string) string {
	switch gate {
	case "paid":
		return "paid tier, billing not enabled for it"
	case "disabled":
		return "enabled = false"
	}
	return gate
}

// maxListed bounds the names an unknown-model error lists.
const maxListed = 20

func unknownModel(name string, models []ModelInfo) *wireError {
	ids := make([]string, 0, min(len(models), maxListed))
	for _, m := range models[:min(len(models), maxListed)] {
		ids = append(ids, m.ID)
	}
	list := strings.Join(ids, ", ")
	if len(models) > maxListed {
		list += fmt.Sprintf(" and %d more", len(models)-maxListed)
	}
	if list == "" {
		list = "none"
	}
	return &wireError{kind: kindNotFound, code: "model_not_found", param: "model",
		message: fmt.Sprintf("model %q does not exist here; available: %s (GET /v1/models lists them)", name, list)}
}
