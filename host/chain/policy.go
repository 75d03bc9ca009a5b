package chain

import "time"

// Defaults for a zero Policy field.
const (
	// DefaultAttempts is one try and one retry of a transient failure.
	DefaultAttempts = 2
	DefaultBackoff  = 500 * time.Millisecond
	// DefaultMaxRetryAfter bounds how long a hop's Retry-After hint may hold
	// the caller; a longer hint falls back at once.
	DefaultMaxRetryAfter = 20 * time.Second
	// DefaultFirstToken allows for a local model loading from an SD card
	// and for reasoning models that stream nothing while they think.
	DefaultFirstToken = 60 * time.Second
	// DefaultIdle allows for a long tool call: plugins send a tool call only
	// once its arguments are complete, so the upstream may stream for a
	// while with nothing to forward.
	DefaultIdle = 60 * time.Second
)

// Policy is how a chain retries, waits and times out. The zero value is the
// default policy; a zero field takes its Default* value.
type Policy struct {
	// Attempts is how many times a hop is tried on transient failures,
	// counting the first try. Values below 1 take DefaultAttempts.
	Attempts int
	// Backoff is the wait before a retry when the failure carries no
	// Retry-After hint; it doubles with each further retry, up to
	// MaxRetryAfter (DefaultMaxRetryAfter when that is negative).
	// Negative: retry at once.
	Backoff time.Duration
	// MaxRetryAfter is the longest wait honoured, hinted or not. A failure
	// whose hint exceeds it falls back to the next hop instead of
	// sleeping. Negative: never wait for a hint (a hinted failure falls
	// back at once).
	MaxRetryAfter time.Duration
	// FirstToken bounds the time from the start of an attempt to its first
	// content event. Negative: no bound.
	FirstToken time.Duration
	// Idle bounds the silence between two events once content has started
	// to flow. Time spent waiting on the client does not count. Negative:
	// no bound.
	Idle time.Duration
	// AllowContentFilterFallback lets a content_filter refusal fall back to
	// the next hop. Off by default: a refusal ends the chain.
	AllowContentFilterFallback bool
}

func (p Policy) withDefaults() Policy {
	if p.Attempts < 1 {
		p.Attempts = DefaultAttempts
	}
	if p.Backoff == 0 {
		p.Backoff = DefaultBackoff
	}
	if p.MaxRetryAfter == 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if p.FirstToken == 0 {
		p.FirstToken = DefaultFirstToken
	}
	if p.Idle == 0 {
		p.Idle = DefaultIdle
	}
	return p
}

// retryWait decides whether a transient failure of attempt n (1-based) is
// retried on the same hop, and after how long. hint is the failure's
// Retry-After, 0 when it carries none. A negative hint says the hop cannot
// answer a retry soon, so the chain falls back at once: the supervisor's
// plugin_restarting, for a plugin in restart backoff after a crash. p has
// its defaults applied.
func (p Policy) retryWait(n int, hint time.Duration) (time.Duration, bool) {
	if n >= p.Attempts || hint < 0 {
		return 0, false
	}
	if hint > 0 {
		if hint > p.MaxRetryAfter {
			return 0, false
		}
		return hint, true
	}
	if p.Backoff < 0 {
		return 0, true
	}
	limit := p.MaxRetryAfter
	if limit < 0 {
		limit = DefaultMaxRetryAfter
	}
	d := p.Backoff
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, limit), true
}
