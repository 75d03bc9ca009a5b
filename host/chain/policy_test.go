package chain

import (
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
)

func TestPolicyRetryWait(t *testing.T) {
	t.Parallel()
	const s = time.Second
	tests := []struct {
		name      string
		policy    Policy
		n         int
		hint      time.Duration
		wantWait  time.Duration
		wantRetry bool
	}{
		{"default: one retry after 500ms", Policy{}, 1, 0, 500 * time.Millisecond, true},
		{"default: no second retry", Policy{}, 2, 0, 0, false},
		{"hint within the cap is honoured", Policy{}, 1, 20 * s, 20 * s, true},
		{"hint over the cap falls back", Policy{}, 1, 21 * s, 0, false},
		{"custom cap", Policy{MaxRetryAfter: 5 * s}, 1, 6 * s, 0, false},
		{"negative cap refuses every hint", Policy{MaxRetryAfter: -1}, 1, s, 0, false},
		{"backoff doubles", Policy{Attempts: 5, Backoff: s}, 3, 0, 4 * s, true},
		{"backoff stops at the cap", Policy{Attempts: 9, Backoff: s, MaxRetryAfter: 5 * s}, 8, 0, 5 * s, true},
		{"backoff under a negative cap stops at the default cap", Policy{Attempts: 90, Backoff: s, MaxRetryAfter: -1}, 80, 0, DefaultMaxRetryAfter, true},
		{"negative backoff retries at once", Policy{Backoff: -1}, 1, 0, 0, true},
		{"attempts below one take the default", Policy{Attempts: -3}, 1, 0, 500 * time.Millisecond, true},
		{"a negative hint falls back at once", Policy{Attempts: 5}, 1, -time.Millisecond, 0, false},
		{"a negative hint falls back at once, whatever the backoff", Policy{Backoff: -1}, 1, -time.Millisecond, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wait, retry := tc.policy.withDefaults().retryWait(tc.n, tc.hint)
			if wait != tc.wantWait || retry != tc.wantRetry {
				t.Errorf("retryWait(%d, %v) = %v, %v; want %v, %v", tc.n, tc.hint, wait, retry, tc.wantWait, tc.wantRetry)
			}
		})
	}
}

// TestRunSkipsARestartingHop: a hop whose plugin is in restart backoff
// (the supervisor's plugin_restarting, with a negative hint) is not
// retried and not waited for: the chain falls back at once.
func TestRunSkipsARestartingHop(t *testing.T) {
	t.Parallel()
	restarting := &sdk.Error{Class: sdk.ClassTransient, Code: "plugin_restarting", RetryAfter: -time.Millisecond, Message: "plugin glm is restarting"}
	runAll(t, []runCase{{
		name:   "plugin_restarting falls back at once",
		policy: Policy{Attempts: 3},
		hops: []hopSpec{
			{name: "glm", calls: [][]step{{fail(restarting)}}},
			{name: "ollama", calls: [][]step{answer("qwen2.5:3b", "hello")}},
		},
		wantTrail:    "glm#1 fallback transient/plugin_restarting t=0ms, ollama#1 ok t=0ms",
		wantEvents:   answerEvents("qwen2.5:3b", "hello"),
		wantProvider: "ollama", wantModel: "qwen2.5:3b",
	}})
}
