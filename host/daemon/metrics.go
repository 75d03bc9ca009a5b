package daemon

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/axonhq/axon/host/api"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/usage"
)

// Metrics are axon's Prometheus metrics, on a registry of their own. They
// carry names and classes only, never message text.
type Metrics struct {
	registry  *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	firstByte *prometheus.HistogramVec
	turns     *prometheus.CounterVec
	attempts  *prometheus.CounterVec
	fallbacks *prometheus.CounterVec
	errors    *prometheus.CounterVec
	egressB   *prometheus.CounterVec
	egressN   *prometheus.CounterVec
	rescues   *prometheus.CounterVec
	skipped   *prometheus.CounterVec
	tokens    *prometheus.CounterVec
	cost      *prometheus.CounterVec
	refCost   *prometheus.CounterVec
	dropped   prometheus.Counter
}

var (
	_ chain.Observer = (*Metrics)(nil)
	_ api.Observer   = (*Metrics)(nil)
	_ usage.Meter    = (*Metrics)(nil)
)

// NewMetrics registers every metric, plus the Go and process collectors.
func NewMetrics() *Metrics {
	r := prometheus.NewRegistry()
	m := &Metrics{
		registry: r,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "axon_requests_total", Help: "Front door requests by route and HTTP status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "axon_request_duration_seconds", Help: "Front door request latency, arrival to last byte.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 12),
		}, []string{"route", "stream"}),
		firstByte: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "axon_first_byte_seconds", Help: "Time to the first streamed byte.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 12),
		}, []string{"route"}),
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "axon_chain_turns_total", Help: "Chain runs by outcome (ok, exhausted, committed_failure, canceled).",
		}, []string{"chain", "outcome"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "axon_chain_attempts_total", Help: "Provider attempts by outcome.",
		}, []string{"chain", "provider", "outcome"}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "axon_chain_fallbacks_total", Help: "Times a chain moved on to its next provider.",
		}, []string{"chain", "from"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "axon_provider_errors_total", Help: "Provider failures by error class.",
		}, []string{"provider", "class"}),
		egressB: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "axon_egress_bytes_total", Help: "Response bytes received through the egress, per plugin instance.",
		}, []string{"plugin", "host"}),
		egressN: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "axon_egress_requests_total", Help: "Egress requests per plugin instance and status.",
		}, []string{"plugin", "host", "status"}),
		rescues: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "axon_chain_rescues_total", Help: "Turns answered after a failed attempt, by how: retry (the same provider again), fallback (a later provider), continue (a later provider carried on a stream cut mid-answer).",
		}, []string{"chain", "kind"}),
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "axon_provider_skipped_events_total", Help: "Upstream stream events a provider plugin could not decode and skipped.",
		}, []string{"provider"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "axon_tokens_total", Help: "Tokens the answering provider reported, by kind (input, output, cache_read, cache_write); a count it did not report adds nothing.",
		}, []string{"provider", "kind"}),
		cost: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "axon_cost_usd_total", Help: "USD the turns cost, at the price table or pricing {} (0 for a local or sub tier); turns that cannot be priced add nothing.",
		}, []string{"provider"}),
		refCost: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "axon_reference_cost_usd_total", Help: "USD the same turns would have cost at the reference price; less axon_cost_usd_total, the cost avoided.",
		}, []string{"provider"}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "axon_usage_facts_dropped_total", Help: "Usage facts that never reached the usage store: its queue was full, or a write failed.",
		}),
	}
	r.MustRegister(m.requests, m.latency, m.firstByte, m.turns, m.attempts, m.fallbacks, m.errors, m.egressB, m.egressN, m.rescues, m.skipped,
		m.tokens, m.cost, m.refCost, m.dropped,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// ObserveRequest records a finished front door request.
func (m *Metrics) ObserveRequest(r api.Record) {
	m.requests.WithLabelValues(r.Route, strconv.Itoa(r.Status)).Inc()
	m.latency.WithLabelValues(r.Route, strconv.FormatBool(r.Stream)).Observe(r.Latency.Seconds())
	if r.FirstByte > 0 {
		m.firstByte.WithLabelValues(r.Route).Observe(r.FirstByte.Seconds())
	}
}

func (m *Metrics) OnTurnStart(string)            {}
func (m *Metrics) OnFirstContent(string, string) {}

// OnHop counts attempts, failures by class and fallbacks.
func (m *Metrics) OnHop(c string, a chain.Attempt) {
	m.attempts.WithLabelValues(c, a.Provider, string(a.Outcome)).Inc()
	if a.Class != "" {
		m.errors.WithLabelValues(a.Provider, string(a.Class)).Inc()
	}
	if a.Outcome == chain.OutcomeFallback {
		m.fallbacks.WithLabelValues(c, a.Provider).Inc()
	}
	if a.Skipped > 0 {
		m.skipped.WithLabelValues(a.Provider).Add(float64(a.Skipped))
	}
}

// rescue names how a successful turn got its answer after a failure: "" when
// the first attempt answered; "continue" when a later provider carried on
// a streamed answer that broke off after its text reached the client.
func rescue(t chain.Trail) string {
	var tried []chain.Attempt
	for _, a := range t {
		if a.Outcome != chain.OutcomeSkip {
			tried = append(tried, a)
		}
	}
	switch {
	case len(tried) < 2:
		return ""
	case tried[len(tried)-1].Continue != "":
		return "continue"
	case tried[len(tried)-1].Provider == tried[0].Provider:
		return "retry"
	default:
		return "fallback"
	}
}

// OnTurnEnd counts chain outcomes.
func (m *Metrics) OnTurnEnd(c string, res *chain.Result, err error) {
	var exhausted *chain.ExhaustedError
	var committed *chain.CommittedError
	outcome := "ok"
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled):
		// The client went away (the front door wraps context.Canceled, and the
		// chain may wrap that in a CommittedError): not a provider failure.
		outcome = "canceled"
	case errors.As(err, &exhausted):
		outcome = "exhausted"
	case errors.As(err, &committed):
		outcome = "committed_failure"
	default:
		outcome = "canceled"
	}
	m.turns.WithLabelValues(c, outcome).Inc()
	if err == nil && res != nil {
		if kind := rescue(res.Trail); kind != "" {
			m.rescues.WithLabelValues(c, kind).Inc()
		}
	}
}

// Fact counts a turn's tokens and cost by the provider that answered.
func (m *Metrics) Fact(f usage.Fact) {
	if f.Provider == "" {
		return
	}
	for _, c := range [...]struct {
		kind string
		n    *int64
	}{{"input", f.Tokens.InputTokens}, {"output", f.Tokens.OutputTokens}, {"cache_read", f.Tokens.CacheReadTokens}, {"cache_write", f.Tokens.CacheWriteTokens}} {
		if c.n != nil && *c.n > 0 {
			m.tokens.WithLabelValues(f.Provider, c.kind).Add(float64(*c.n))
		}
	}
	// A counter's Add panics below zero: clamp what rounding might leave.
	if f.CostUSD != nil {
		m.cost.WithLabelValues(f.Provider).Add(max(0, *f.CostUSD))
		if f.AvoidedUSD != nil {
			m.refCost.WithLabelValues(f.Provider).Add(max(0, *f.CostUSD+*f.AvoidedUSD))
		}
	}
}

// Dropped counts usage facts the store lost.
func (m *Metrics) Dropped(n int) { m.dropped.Add(float64(n)) }

func (m *Metrics) egress(plugin, host string, status int, n int64, _ time.Duration) {
	m.egressB.WithLabelValues(plugin, host).Add(float64(n))
	m.egressN.WithLabelValues(plugin, host, strconv.Itoa(status)).Inc()
}
