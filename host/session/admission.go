package session

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Params is what a caller sends to start a run.
type Params struct {
	Prompt string `json:"prompt"`
	System string `json:"system,omitempty"`
	// IdempotencyKey makes a resend safe: the same key returns the run it
	// started. Empty: the host draws one (returned in Admitted).
	IdempotencyKey string   `json:"idempotency_key,omitempty"`
	Chain          string   `json:"chain,omitempty"` // default Options.DefaultChain
	Tools          []string `json:"tools,omitempty"` // tool block names the run may use
	MaxTurns       *int     `json:"max_turns,omitempty"`
	Budget         Budget   `json:"budget,omitzero"`
}

// Admitted describes the run a Send started or found.
type Admitted struct {
	SessionID      string    `json:"session_id"`
	RunID          string    `json:"run_id"`
	IdempotencyKey string    `json:"idempotency_key"`
	Status         Status    `json:"status"`
	Reason         EndReason `json:"reason,omitempty"`
	// Existing: the key named an earlier run, which is returned as it is.
	Existing bool `json:"existing"`
	// After is the cursor to subscribe from to see the run from its start.
	After Cursor `json:"after"`
}

// Limits on what a caller may send.
const (
	maxPrompt   = 1 << 20
	maxKeyBytes = 200
	maxMaxTurns = 1000
)

// validate checks what needs no session and no plugin.
func (p *Params) validate() error {
	switch {
	case strings.TrimSpace(p.Prompt) == "":
		return invalidf("prompt", "is required")
	case len(p.Prompt) > maxPrompt || len(p.System) > maxPrompt:
		return invalidf("prompt", "prompt and system are limited to %d bytes each", maxPrompt)
	case len(p.IdempotencyKey) > maxKeyBytes:
		return invalidf("idempotency_key", "is %d bytes, at most %d", len(p.IdempotencyKey), maxKeyBytes)
	case p.MaxTurns != nil && (*p.MaxTurns < 1 || *p.MaxTurns > maxMaxTurns):
		return invalidf("max_turns", "must be a positive integer, at most %d", maxMaxTurns)
	case p.Budget.Tokens != nil && *p.Budget.Tokens < 1:
		return invalidf("budget.tokens", "must be a positive integer")
	case p.Budget.CostUSD != nil && (!(*p.Budget.CostUSD > 0) || math.IsInf(*p.Budget.CostUSD, 0)):
		return invalidf("budget.cost_usd", "must be a positive number")
	}
	for _, c := range []byte(p.IdempotencyKey) {
		if c < 0x21 || c > 0x7e {
			return invalidf("idempotency_key", "must be printable ASCII without spaces")
		}
	}
	return nil
}

// Send admits a run on the session key names, creating the session on its
// first run. Admission resolves everything before writing anything: an
// existing run under the idempotency key is returned as it is; then the
// chain, the tools (their plugins answer), max_turns and the budget are
// checked and frozen into the RunStarted record, which is the first thing
// written. A refused admission writes nothing, and a new session's
// directory is created only for a run that is admitted. The run proceeds
// in the background; follow it with Follow from Admitted.After.
func (m *Manager) Send(ctx context.Context, key Key, p Params) (Admitted, error) {
	if err := m.admitting(); err != nil {
		return Admitted{}, err
	}
	if err := key.Validate(); err != nil {
		return Admitted{}, err
	}
	if err := p.validate(); err != nil {
		return Admitted{}, err
	}
	if p.IdempotencyKey == "" {
		p.IdempotencyKey = "k_" + strings.ToLower(rand.Text())
	}
	id := key.ID()
	if m.exists(id) {
		if adm, found, err := m.existing(id, p); found || err != nil {
			return adm, err
		}
	}
	frozen, err := m.freeze(ctx, p)
	if err != nil {
		return Admitted{}, err
	}
	a, err := m.acquire(id, &key)
	if err != nil {
		return Admitted{}, err
	}
	defer m.release(a)
	var adm Admitted
	err = a.exec(func() error {
		var err error
		adm, err = a.admit(frozen)
		return err
	})
	return adm, err
}

// existing returns the run of session id started under p's key, if any.
func (m *Manager) existing(id string, p Params) (Admitted, bool, error) {
	a, err := m.acquire(id, nil)
	if err != nil {
		return Admitted{}, false, err
	}
	defer m.release(a)
	var adm Admitted
	var found bool
	err = a.exec(func() error {
		r := a.st.byKey[p.IdempotencyKey]
		if r == nil {
			return nil
		}
		found = true
		var aerr error
		adm, aerr = a.admitted(r, p.Prompt)
		return aerr
	})
	return adm, found, err
}

// freeze resolves p against the configuration into a RunStarted record.
func (m *Manager) freeze(ctx context.Context, p Params) (*RunStarted, error) {
	st := &RunStarted{
		IdempotencyKey: p.IdempotencyKey, Prompt: p.Prompt, System: p.System,
		Chain: p.Chain, ToolBlocks: normalizeBlocks(p.Tools), MaxTurns: m.opts.DefaultMaxTurns, Budget: p.Budget,
	}
	if st.Chain == "" {
		st.Chain = m.opts.DefaultChain
	}
	if p.MaxTurns != nil {
		st.MaxTurns = *p.MaxTurns
	}
	ch, err := m.opts.Chains.Chain(st.Chain)
	if err != nil {
		return nil, invalidf("chain", "%v", err)
	}
	if st.Models, err = m.freezeModels(ctx, ch); err != nil {
		return nil, err
	}
	for _, f := range st.Models {
		if p.Budget.CostUSD != nil && !f.Price.priced() {
			return nil, invalidf("budget.cost_usd", "provider %q of chain %q has no input and output pricing, so a cost budget cannot be enforced", f.Provider, st.Chain)
		}
	}
	if st.Tools, err = m.freezeTools(ctx, st.ToolBlocks); err != nil {
		return nil, err
	}
	return st, nil
}

// admit writes RunStarted and starts the run, unless the key already names
// a run or another run holds the session. Actor goroutine only.
func (a *actor) admit(st *RunStarted) (Admitted, error) {
	if a.broken != nil {
		return Admitted{}, a.broken // its open run is not running: it is being sealed
	}
	if r := a.st.byKey[st.IdempotencyKey]; r != nil {
		return a.admitted(r, st.Prompt)
	}
	if o := a.st.open(); o != nil {
		return Admitted{}, &BusyError{RunID: o.id, Status: o.status}
	}
	if err := a.m.admitting(); err != nil {
		return Admitted{}, err
	}
	runID := a.m.opts.NewRunID()
	a.m.fp.hit("before_run_started")
	if _, err := a.commit(Record{Type: RecRunStarted, RunID: runID, RunStarted: st}); err != nil {
		return Admitted{}, err
	}
	a.m.fp.hit("after_run_started")
	a.m.log.Info("run started", "session", a.id, "run", runID, "chain", st.Chain, "tools", len(st.Tools))
	r := a.st.byID[runID]
	if err := a.startRun(runID); err != nil {
		// Shutdown began between the check and here: the run is durable
		// and resumes on the next start.
		a.m.log.Warn("run admitted as the host stops; it resumes on the next start", "session", a.id, "run", runID)
	}
	adm, _ := a.admitted(r, st.Prompt)
	adm.Existing = false
	return adm, nil
}

// admitted describes r to a caller that sent prompt under its key.
func (a *actor) admitted(r *runState, prompt string) (Admitted, error) {
	if r.start.Prompt != prompt {
		return Admitted{}, fmt.Errorf("%w: key %q started run %s", ErrKeyReused, r.start.IdempotencyKey, r.id)
	}
	adm := Admitted{SessionID: a.id, RunID: r.id, IdempotencyKey: r.start.IdempotencyKey, Status: r.status, Existing: true, After: After(r.startSeq - 1)}
	if r.end != nil {
		adm.Reason = r.end.Reason
	}
	return adm, nil
}

// Cancel stops session id's open run (runID, when given, must name it): a
// running run stops at its next boundary and finishes cancelled, naming
// calls in flight past the grace period as indeterminate; a paused run
// finishes cancelled at once. Cancel returns before a running run is sealed.
func (m *Manager) Cancel(ctx context.Context, id, runID string) (string, error) {
	return m.onOpenRun(id, runID, func(a *actor, r *runState) error {
		if r.status == StatusPaused {
			_, err := a.commit(Record{Type: RecRunFinished, RunID: r.id, Finished: &RunEnd{Reason: EndCancelled}})
			return err
		}
		if a.active == nil || a.active.id != r.id {
			return fmt.Errorf("%w: run %s is not being driven here", ErrNoOpenRun, r.id)
		}
		a.active.stop(EndCancelled)
		return nil
	})
}

// Resume continues session id's paused run: RunResumed is written and the
// loop calls the model again. A run whose frozen model is no longer
// served is refused with a *ModelError, and stays paused.
func (m *Manager) Resume(ctx context.Context, id, runID string) (string, error) {
	return m.onOpenRun(id, runID, func(a *actor, r *runState) error {
		if r.status != StatusPaused {
			return fmt.Errorf("%w: run %s is %s, not paused", ErrNoOpenRun, r.id, r.status)
		}
		if err := m.admitting(); err != nil {
			return err
		}
		if _, err := m.runChain(ctx, r.id, r.start); errors.Is(err, ErrModelUnservable) {
			return err
		}
		if _, err := a.commit(Record{Type: RecRunResumed, RunID: r.id}); err != nil {
			return err
		}
		if a.active != nil {
			// The driver that paused is still winding down: it sees the run
			// running again, or restarts it on its way out. Never two drivers.
			return nil
		}
		return a.startRun(r.id)
	})
}

// onOpenRun runs fn on session id's actor with its open run.
func (m *Manager) onOpenRun(id, runID string, fn func(*actor, *runState) error) (string, error) {
	if !validID(id) || !m.exists(id) {
		return "", fmt.Errorf("%w: session %q", ErrNotFound, id)
	}
	a, err := m.acquire(id, nil)
	if err != nil {
		return "", err
	}
	defer m.release(a)
	var got string
	err = a.exec(func() error {
		r := a.st.open()
		switch {
		case r == nil:
			return fmt.Errorf("%w: session %s has no open run", ErrNoOpenRun, id)
		case runID != "" && r.id != runID:
			if a.st.byID[runID] == nil {
				return fmt.Errorf("%w: run %q", ErrNotFound, runID)
			}
			return fmt.Errorf("%w: run %s is not the open run (%s)", ErrNoOpenRun, runID, r.id)
		}
		got = r.id
		return fn(a, r)
	})
	if errors.Is(err, errActorClosed) {
		err = ErrShuttingDown
	}
	return got, err
}
