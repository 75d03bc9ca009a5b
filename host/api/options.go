package api

import (
	"crypto/rand"
	"net/http"
	"time"
)

// DefaultMaxBodyBytes is the request body limit when none is configured.
const DefaultMaxBodyBytes = 16 << 20

// Option configures the server New returns.
type Option func(*config)

type config struct {
	token         string // empty: no client authentication
	maxBody       int64
	metrics       http.Handler
	observer      Observer
	fallbackModel string
	now           func() time.Time
	newID         func() string
}

func defaultConfig() config {
	return config{
		maxBody: DefaultMaxBodyBytes,
		now:     time.Now,
		newID:   rand.Text,
	}
}

// WithToken requires every request except GET /healthz to carry token, as
// "Authorization: Bearer <token>" (OpenAI clients) or "x-api-key: <token>"
// (Anthropic clients). An empty token turns authentication off.
func WithToken(token string) Option {
	return func(c *config) { c.token = token }
}

// WithMaxBodyBytes refuses request bodies larger than n bytes with 413.
// n <= 0 keeps DefaultMaxBodyBytes.
func WithMaxBodyBytes(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.maxBody = n
		}
	}
}

// WithMetrics serves h at GET /metrics (behind the token, when one is set).
func WithMetrics(h http.Handler) Option {
	return func(c *config) { c.metrics = h }
}

// WithObserver reports every request to o when it completes.
func WithObserver(o Observer) Option {
	return func(c *config) { c.observer = o }
}

// WithFallbackModel serves requests naming a model Backend.Models does not
// list with the model called name, instead of refusing them with 404. It is
// for clients that cannot be told a model name and send a vendor's.
func WithFallbackModel(name string) Option {
	return func(c *config) { c.fallbackModel = name }
}

// WithClock replaces time.Now, for the created timestamps of responses and
// the latencies reported to the Observer.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}
