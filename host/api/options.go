package api

import (
	"context"
	"crypto/rand"
	"net/http"
	"time"
)

// The limits of the front door when none is configured.
const (
	DefaultMaxBodyBytes        = 16 << 20         // a request body
	DefaultBodyTimeout         = 60 * time.Second // to read a request body
	DefaultWriteStall          = 60 * time.Second // a write to a client that does not read
	DefaultMaxAnswerBytes      = 64 << 20         // content of one whole (non-streamed) answer
	DefaultMaxInFlight         = 256              // generation requests at once, all chains
	DefaultMaxInFlightPerChain = 64               // generation requests at once on one chain
	DefaultOverloadRetryAfter  = time.Second      // the retry-after of a request refused for overload
	DefaultReadHeaderTimeout   = 10 * time.Second // to read a request's headers
	DefaultIdleTimeout         = 60 * time.Second // a keep-alive connection waiting for its next request
	DefaultMaxHeaderBytes      = 64 << 10         // a request's headers
)

// Option configures the server New returns.
type Option func(*config)

type config struct {
	token         string // empty: no client authentication
	maxBody       int64
	bodyTimeout   time.Duration
	writeStall    time.Duration
	maxAnswer     int64
	maxInFlight   int
	maxPerChain   int
	retryAfter    time.Duration
	shutdown      context.Context // done: the server is going away
	readHeader    time.Duration   // the http.Server limits HTTPServer applies
	idle          time.Duration
	maxHeader     int
	metrics       http.Handler
	health        func() error // nil: always healthy
	observer      Observer
	fallbackModel string
	now           func() time.Time
	newID         func() string
}

func defaultConfig() config {
	return config{
		maxBody:     DefaultMaxBodyBytes,
		bodyTimeout: DefaultBodyTimeout,
		writeStall:  DefaultWriteStall,
		maxAnswer:   DefaultMaxAnswerBytes,
		maxInFlight: DefaultMaxInFlight,
		maxPerChain: DefaultMaxInFlightPerChain,
		retryAfter:  DefaultOverloadRetryAfter,
		shutdown:    context.Background(),
		readHeader:  DefaultReadHeaderTimeout,
		idle:        DefaultIdleTimeout,
		maxHeader:   DefaultMaxHeaderBytes,
		now:         time.Now,
		newID:       rand.Text,
	}
}

func newConfig(opts []Option) config {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
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

// WithBodyTimeout gives a client d to send a request body, counted from the
// end of its headers; a body still arriving then is refused with 408. It is
// a deadline on reading the request only: a response may stream for as long
// as it takes. d <= 0 keeps DefaultBodyTimeout.
func WithBodyTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.bodyTimeout = d
		}
	}
}

// WithWriteStall abandons a response once a write to the client has been
// blocked for d: the client stopped reading (its connection is still open,
// but its receive window stays shut). The backend call is cancelled and the
// request recorded as Canceled. A client that reads, however slowly, is
// never cut: the deadline moves with every write. d <= 0 keeps
// DefaultWriteStall.
func WithWriteStall(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.writeStall = d
		}
	}
}

// WithMaxAnswerBytes bounds the content (text, reasoning, tool calls) that
// a whole, non-streamed answer may hold: the front door must keep it all
// until the end. An answer that grows past n is stopped and reported as a
// 502 naming the limit. Streamed answers keep nothing and have no such
// limit. n <= 0 keeps DefaultMaxAnswerBytes.
func WithMaxAnswerBytes(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.maxAnswer = n
		}
	}
}

// WithMaxInFlight bounds the generation requests served at once: over all
// chains (total) and on any one chain (perChain). A request beyond either
// bound is refused at once as overloaded (OpenAI 503, Anthropic 529
// overloaded_error) with a retry-after header, so the requests admitted keep
// their latency. A value <= 0 keeps its default (DefaultMaxInFlight,
// DefaultMaxInFlightPerChain).
func WithMaxInFlight(total, perChain int) Option {
	return func(c *config) {
		if total > 0 {
			c.maxInFlight = total
		}
		if perChain > 0 {
			c.maxPerChain = perChain
		}
	}
}

// WithOverloadRetryAfter is the retry-after sent with a request refused
// for overload or shutdown. d <= 0 keeps DefaultOverloadRetryAfter.
func WithOverloadRetryAfter(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.retryAfter = d
		}
	}
}

// WithShutdown ends every response still running when ctx is done with an
// error of the client's format: a stream gets an in-band error event (the
// OpenAI error chunk without [DONE], Anthropic's event: error), a whole
// response a 503 / 529; new requests are refused the same way. The backend
// calls are cancelled. The host cancels ctx when its shutdown grace is over,
// before it closes the connections, so no client sees a silent cut.
func WithShutdown(ctx context.Context) Option {
	return func(c *config) {
		if ctx != nil {
			c.shutdown = ctx
		}
	}
}

// WithReadHeaderTimeout, WithIdleTimeout and WithMaxHeaderBytes are the
// connection limits HTTPServer puts on its http.Server; New ignores them.
// A value <= 0 keeps the default (DefaultReadHeaderTimeout,
// DefaultIdleTimeout, DefaultMaxHeaderBytes).
func WithReadHeaderTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.readHeader = d
		}
	}
}

// WithIdleTimeout: see WithReadHeaderTimeout.
func WithIdleTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.idle = d
		}
	}
}

// WithMaxHeaderBytes: see WithReadHeaderTimeout.
func WithMaxHeaderBytes(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxHeader = n
		}
	}
}

// WithMetrics serves h at GET /metrics (behind the token, when one is set).
func WithMetrics(h http.Handler) Option {
	return func(c *config) { c.metrics = h }
}

// WithHealth makes GET /healthz answer 503 with check's error while it
// returns one (a session log that cannot be written, say), so monitors
// see what needs an operator.
func WithHealth(check func() error) Option {
	return func(c *config) { c.health = check }
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
