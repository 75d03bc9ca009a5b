package config

import "time"

// Defaults for everything the configuration may leave out. They are applied
// at load time, so a loaded Config holds the effective values.
const (
	DefaultListen           = "127.0.0.1:7070"
	DefaultConnectTimeout   = 10 * time.Second
	DefaultResponseTimeout  = 2 * time.Minute // non-streaming answers arrive only when complete
	DefaultMaxResponseBytes = 32 << 20
	DefaultFirstToken       = time.Minute // a provider of unknown tier: no preset, no tier
	DefaultIdle             = 30 * time.Second
	DefaultRetryAttempts    = 2 // one retry
	DefaultRetryBackoff     = 500 * time.Millisecond
	DefaultMaxRetryAfter    = 20 * time.Second
	DefaultChain            = "default"
)

// First-token bounds by tier, for a provider block that sets none.
const (
	// DefaultHostedFirstToken bounds the wait for a hosted provider's first
	// token (a non-local preset, or tier "sub" or "api"): a hosted API that
	// has not started to answer in 10 s is stuck or queueing, and the next
	// provider is the faster way to an answer.
	DefaultHostedFirstToken = 10 * time.Second
	// DefaultLocalFirstToken allows a local model (tier "local") to load
	// from disk, or an SD card, before its first token.
	DefaultLocalFirstToken = 3 * time.Minute
)

// Egress defaults beyond connect, response and response size.
const (
	// DefaultTotalTimeout lets a long streamed answer finish: 64k output
	// tokens at 50 tokens/s, or 4k from a small local model on a Pi.
	DefaultTotalTimeout       = 30 * time.Minute
	DefaultRequestIdleTimeout = 30 * time.Second
	DefaultMaxRequestBytes    = 32 << 20 // the providers' own cap (Anthropic's is 32 MB)
	DefaultMaxConcurrent      = 16
)

// Plugin processes' GOMAXPROCS (max_procs).
const (
	// DefaultMaxProcs runs a plugin's Go code on one thread at a time. A
	// plugin mostly waits on the host; with more procs than it has work
	// for, the Go scheduler spins idle threads at every wake-up, which cost
	// an unpinned openai plugin 5-10 % of the whole request's CPU at 16
	// connections (bench/README.md, "What stands in the way").
	DefaultMaxProcs = 1
	maxMaxProcs     = 1024
)
