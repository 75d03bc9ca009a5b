package daemon

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/axonhq/axon/host/chain"
)

// TestTurnOutcomes: a client that went away mid-stream is a canceled turn,
// not a committed failure, even when the chain wraps it as one.
func TestTurnOutcomes(t *testing.T) {
	t.Parallel()
	m := NewMetrics()
	gone := fmt.Errorf("client went away: %w", context.Canceled)
	m.OnTurnEnd("c", nil, &chain.CommittedError{Chain: "c", Provider: "p", Err: gone})
	m.OnTurnEnd("c", nil, &chain.CommittedError{Chain: "c", Provider: "p", Err: errors.New("stream cut")})
	m.OnTurnEnd("c", nil, nil)
	for outcome, want := range map[string]float64{"canceled": 1, "committed_failure": 1, "ok": 1} {
		if got := testutil.ToFloat64(m.turns.WithLabelValues("c", outcome)); got != want {
			t.Errorf("%s = %v, want %v", outcome, got, want)
		}
	}
}

// TestRescuesAndSkippedEvents: a turn answered after a failed attempt counts
// as a rescue of its kind; a first-attempt answer, a skipped hop and a failed
// turn do not; skipped upstream events are counted per provider.
func TestRescuesAndSkippedEvents(t *testing.T) {
	t.Parallel()
	m := NewMetrics()
	ok := func(tr ...chain.Attempt) *chain.Result { return &chain.Result{Trail: tr} }
	retry := chain.Attempt{Provider: "glm", Attempt: 1, Outcome: chain.OutcomeRetry}
	fallback := chain.Attempt{Provider: "glm", Attempt: 1, Outcome: chain.OutcomeFallback}
	skip := chain.Attempt{Provider: "glm", Outcome: chain.OutcomeSkip}
	answered := func(p string, n int) chain.Attempt {
		return chain.Attempt{Provider: p, Attempt: n, Outcome: chain.OutcomeOK}
	}
	m.OnTurnEnd("c", ok(answered("glm", 1)), nil)
	m.OnTurnEnd("c", ok(skip, answered("ollama", 1)), nil)
	m.OnTurnEnd("c", ok(retry, answered("glm", 2)), nil)
	m.OnTurnEnd("c", ok(fallback, answered("ollama", 1)), nil)
	m.OnTurnEnd("c", ok(retry, fallback, answered("ollama", 1)), nil)
	m.OnTurnEnd("c", ok(fallback), &chain.ExhaustedError{Chain: "c"})
	cut := chain.Attempt{Provider: "glm", Attempt: 1, Outcome: chain.OutcomeCut, Cut: 412}
	continued := chain.Attempt{Provider: "ollama", Attempt: 1, Outcome: chain.OutcomeOK, Continue: chain.ContinuePrefill}
	m.OnTurnEnd("c", ok(cut, continued), nil)
	for kind, want := range map[string]float64{"retry": 1, "fallback": 2, "continue": 1} {
		if got := testutil.ToFloat64(m.rescues.WithLabelValues("c", kind)); got != want {
			t.Errorf("rescues{kind=%s} = %v, want %v", kind, got, want)
		}
	}

	m.OnHop("c", chain.Attempt{Provider: "glm", Attempt: 1, Outcome: chain.OutcomeOK, Skipped: 2})
	m.OnHop("c", chain.Attempt{Provider: "glm", Attempt: 1, Outcome: chain.OutcomeOK})
	if got := testutil.ToFloat64(m.skipped.WithLabelValues("glm")); got != 2 {
		t.Errorf("skipped events = %v, want 2", got)
	}
}
