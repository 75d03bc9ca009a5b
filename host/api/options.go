package api

import (
	"context"
	"crypto/rand"
	"net/http"
	"strings"
	"time"
)

// The limits of the front door. The package's tests lower them; axon runs
// with these.
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

// config is the server's configuration. The limits have no Option: axon
// runs with the Default* values, and the package's tests set the fields.
type config struct {
	token       string // empty: no client authentication
	maxBody     int64
	bodyTimeout time.Duration
	writeStall  time.Duration
	maxAnswer   int64
	maxInFlight int
	maxPerChain int
	retryAfter  time.Duration
	shutdown    context.Context // done: the server is going away
	metrics     http.Handler
	health      func() error // nil: always healthy
	observer    Observer
	mounts      []mount
	responses   ResponseStore // nil: no response is kept
	now         func() time.Time
	newID       func() string
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
// (Anthropic clients); mounts included. An empty token turns authentication
// off.
func WithToken(token string) Option {
	return func(c *config) { c.token = token }
}

// WithShutdown ends every response still running when ctx is done with an
// error of the client's format: a stream gets an in-band error event (the
// OpenAI error chunk without [DONE], Anthropic's event: error), a whole
// response a 503 / 529; new requests are refused the same way. The backend
// calls are cancelled. The host cancels ctx when its shutdown grace is over,
// before it closes the connections, so no client sees a silent cut. Mounts
// shut down on their own.
func WithShutdown(ctx context.Context) Option {
	return func(c *config) {
		if ctx != nil {
			c.shutdown = ctx
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

// WithObserver reports every request to o when it completes, mounts'
// included.
func WithObserver(o Observer) Option {
	return func(c *config) { c.observer = o }
}

// Mount is another API the front door serves beside its own, under a path
// prefix (the sessions API under /v1/sessions): behind the same token and
// reported to the same Observer, but answering in its own error format,
// within its own limits (the body, write and admission limits are the
// generation endpoints'; they do not apply to it).
type Mount interface {
	http.Handler
	// Refuse answers, in the mount's own error format, a request the front
	// door refused before handing it on: today a missing or wrong token
	// (401, code invalid_api_key, WWW-Authenticate already set).
	Refuse(w http.ResponseWriter, status int, code, message string)
}

type mount struct {
	prefix string
	m      Mount
}

// WithMount serves m at prefix and at every path below it ("/v1/sessions"
// serves "/v1/sessions" and "/v1/sessions/..."). When m routes with an
// http.ServeMux, the Observer sees its route patterns.
func WithMount(prefix string, m Mount) Option {
	return func(c *config) { c.mounts = append(c.mounts, mount{prefix: strings.TrimSuffix(prefix, "/"), m: m}) }
}
