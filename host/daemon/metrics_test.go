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
