package session

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/axonhq/axon/host/chain"
)

// Catalog says which model each provider block serves, with its facts
// (host/catalog through the daemon). Admission freezes the entries of the
// run's chain into RunStarted.Models; a resumed run is checked against it.
type Catalog interface {
	// Model is what the catalog says now of the model provider serves. It
	// fails, saying why, when the block serves none: there is no such
	// block, or its plugin no longer lists the model.
	Model(ctx context.Context, provider string) (ModelFacts, error)
}

// ModelFacts is one model of a run's chain as admission found it: the
// provider block, the model it serves and what the catalog knew of it. A
// zero count and a nil capability are unknown.
type ModelFacts struct {
	Provider        string `json:"provider"`
	Model           string `json:"model,omitempty"` // "" the plugin's default model
	ContextWindow   int64  `json:"context_window,omitempty"`
	MaxOutputTokens int64  `json:"max_output_tokens,omitempty"`
	Price           Price  `json:"price,omitzero"`
	Tools           *bool  `json:"tools,omitempty"`
	Prefill         *bool  `json:"prefill,omitempty"`
}

// ErrModelUnservable: a run's frozen model can no longer be served (its
// provider block left the chain or the configuration, the block now
// serves another model, its plugin no longer lists it). The error is a
// *ModelError. The run is not changed to another model: it stays paused
// until the configuration serves its model again, or is cancelled.
var ErrModelUnservable = errors.New("model no longer servable")

// ModelError says which frozen model of which run cannot be served, and
// why.
type ModelError struct {
	RunID    string
	Chain    string
	Provider string
	Model    string
	Why      string
}

func (e *ModelError) Error() string {
	model := e.Model
	if model == "" {
		model = "(the plugin's default)"
	}
	return fmt.Sprintf("run %s was admitted with model %s of provider %s (chain %s), which is no longer servable: %s; the run is not moved to another model: restore the provider block, or cancel the run",
		e.RunID, model, e.Provider, e.Chain, e.Why)
}

// Is makes errors.Is(err, ErrModelUnservable) hold.
func (e *ModelError) Is(target error) bool { return target == ErrModelUnservable }

// freezeModels is the facts of every hop of ch, in order. Without a
// Catalog a hop's facts are its own (model, window, prefill when set).
func (m *Manager) freezeModels(ctx context.Context, ch *chain.Chain) ([]ModelFacts, error) {
	out := make([]ModelFacts, 0, len(ch.Hops))
	for _, h := range ch.Hops {
		f := ModelFacts{Provider: h.Name, Model: h.Model, ContextWindow: h.ContextWindow}
		if h.PrefillFunc == nil && h.Prefill {
			f.Prefill = new(true)
		}
		if m.opts.Catalog != nil {
			var err error
			if f, err = m.opts.Catalog.Model(ctx, h.Name); err != nil {
				return nil, invalidf("chain", "provider %q of chain %q: %v", h.Name, ch.Name, err)
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// runChain is the chain the run admitted as st runs on now: the current
// chain of its name, cut to the hops it was admitted with (in their
// order then), each with its frozen window and prefill. A frozen model the configuration no longer
// serves fails the whole run with a *ModelError: a run is never moved to
// a model it was not admitted with. A run admitted before the catalog
// (no Models) runs on the current chain as it is.
func (m *Manager) runChain(ctx context.Context, runID string, st RunStarted) (*chain.Chain, error) {
	ch, err := m.opts.Chains.Chain(st.Chain)
	if len(st.Models) == 0 {
		return ch, err
	}
	gone := func(f ModelFacts, why string) error {
		return &ModelError{RunID: runID, Chain: st.Chain, Provider: f.Provider, Model: f.Model, Why: why}
	}
	if err != nil {
		return nil, gone(st.Models[0], fmt.Sprintf("chain %q is not configured (%v)", st.Chain, err))
	}
	hops := make([]chain.Hop, 0, len(st.Models))
	for _, f := range st.Models {
		i := slices.IndexFunc(ch.Hops, func(h chain.Hop) bool { return h.Name == f.Provider })
		if i < 0 {
			return nil, gone(f, fmt.Sprintf("provider block %q is no longer in chain %q", f.Provider, st.Chain))
		}
		h := ch.Hops[i]
		now := h.Model
		if m.opts.Catalog != nil {
			cur, err := m.opts.Catalog.Model(ctx, f.Provider)
			if err != nil {
				return nil, gone(f, err.Error())
			}
			now = cur.Model
		}
		if now != f.Model {
			return nil, gone(f, fmt.Sprintf("provider block %q now serves model %q", f.Provider, now))
		}
		h.ContextWindow = f.ContextWindow
		if f.Prefill != nil {
			h.Prefill, h.PrefillFunc = *f.Prefill, nil
		}
		hops = append(hops, h)
	}
	// The frozen hops in their frozen order, with the current chain's
	// policy and router: a hop added since is not the run's.
	c := *ch
	c.Hops = hops
	return &c, nil
}

// price is the frozen price of provider's steps: the catalog entry's, or
// for a run admitted before the catalog, its Prices.
func (st *RunStarted) price(provider string) (Price, bool) {
	if len(st.Models) > 0 {
		for _, f := range st.Models {
			if f.Provider == provider {
				return f.Price, true
			}
		}
		return Price{}, false
	}
	p, ok := st.Prices[provider]
	return p, ok
}
