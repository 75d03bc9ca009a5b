package routing

import (
	"slices"
	"sync"
	"time"

	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/sdk"
)

// lowest_latency keeps, per provider, an exponential moving average of its
// attempts' first-token latency. A provider with no sample, or whose last
// sample is older than latencyStale, counts as untried and is tried first
// (in the chain's order): a new provider is measured at once, and one that
// was slow or failing is measured again now and then rather than never.
const (
	latencyAlpha = 0.3 // the weight of a new sample
	latencyStale = 10 * time.Minute
)

type latencies struct {
	mu sync.Mutex
	m  map[string]latency
}

type latency struct {
	avg float64 // nanoseconds
	at  time.Time
}

func newLatencies() *latencies { return &latencies{m: map[string]latency{}} }

func (l *latencies) sample(name string, d time.Duration, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	x := float64(d)
	if prev, ok := l.m[name]; ok {
		x = prev.avg + latencyAlpha*(x-prev.avg)
	}
	l.m[name] = latency{avg: x, at: now}
}

// order puts the untried of idx first, then the rest by average, fastest
// first; ties keep their order.
func (l *latencies) order(idx []int, name func(int) string, now time.Time) []int {
	l.mu.Lock()
	avg := make(map[int]float64, len(idx))
	for _, i := range idx {
		m, ok := l.m[name(i)]
		if !ok || now.Sub(m.at) > latencyStale {
			avg[i] = -1
			continue
		}
		avg[i] = m.avg
	}
	l.mu.Unlock()
	out := slices.Clone(idx)
	slices.SortStableFunc(out, func(a, b int) int {
		switch {
		case avg[a] < avg[b]:
			return -1
		case avg[a] > avg[b]:
			return 1
		}
		return 0
	})
	return out
}

// latencySample is what attempt a tells lowest_latency: its first-token
// latency when content came; when it failed before any, bound (its
// first-token limit), since a failing provider is as slow as it may be. An
// attempt that ended for the client's sake (cancelled, refused by the
// client sink), a refusal and a skipped hop tell nothing.
func latencySample(a chain.Attempt, bound time.Duration) (time.Duration, bool) {
	switch {
	case a.FirstToken > 0:
		return a.FirstToken, true
	case a.Outcome == chain.OutcomeOK || a.Outcome == chain.OutcomeSkip:
		return 0, false // an answer with no content (a bare finish) is no measure
	case a.Code == chain.CodeCanceled || a.Code == chain.CodeClient || a.Class == sdk.ClassContentFilter:
		return 0, false
	}
	return bound, bound > 0
}
