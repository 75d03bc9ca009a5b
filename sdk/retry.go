package sdk

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxRetryAfter caps a retry hint read from headers: a hint beyond it is
// nonsense or an outage, and the chain's own cap is far lower anyway.
const MaxRetryAfter = 24 * time.Hour

// RetryAfter reads the standard retry hints of an HTTP response, for the
// RetryAfter field of an *Error: `retry-after-ms` (milliseconds, as the
// Anthropic and OpenAI APIs send), else `Retry-After` in seconds or as an
// HTTP date (relative to now). It returns 0 when there is no usable hint
// and never more than MaxRetryAfter.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return capHint(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return capHint(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), MaxRetryAfter)
	}
	return 0
}

func capHint(ns float64) time.Duration {
	if ns >= float64(MaxRetryAfter) { // also +Inf
		return MaxRetryAfter
	}
	return time.Duration(ns)
}
