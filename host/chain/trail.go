package chain

import (
	"strconv"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
)

// Outcome is what the chain did after one attempt.
type Outcome string

const (
	OutcomeOK       Outcome = "ok"       // the attempt answered
	OutcomeRetry    Outcome = "retry"    // the same hop is tried again after a wait
	OutcomeFallback Outcome = "fallback" // the chain moved on to the next hop (or ran out)
	OutcomeSkip     Outcome = "skip"     // not called: its window is not larger than one that overflowed, or (Code) it cannot guarantee a strict schema
	OutcomeStop     Outcome = "stop"     // the chain ended on this failure: committed stream, refusal, or caller cancel
	// OutcomeCut: the stream broke off after text reached the client, and
	// the chain went on to continue it on a later hop (Attempt.Cut).
	OutcomeCut Outcome = "cut"
	// OutcomeMismatch: a regenerated continuation did not begin with the
	// text already sent; the chain ended with the original failure.
	OutcomeMismatch Outcome = "mismatch"
)

// Engine findings recorded in Attempt.Code when the engine, not the
// provider, failed an attempt.
const (
	CodeFirstTokenTimeout = "first_token_timeout"
	CodeIdleTimeout       = "idle_timeout"
	CodeIncomplete        = "incomplete_stream"  // the stream ended without EventFinish
	CodeAfterFinish       = "event_after_finish" // the provider sent an event after EventFinish
	CodeRefusal           = "refusal"            // finished with FinishContentFilter before any content
	CodeUnclassified      = "unclassified"       // the provider returned an error without a class
	CodeCanceled          = "canceled"           // the caller's context ended
	CodeClient            = "client_error"       // the client sink refused an event
)

// Attempt is one entry of the decision trail: one call of one hop, or one
// hop skipped. It holds classes, codes and numbers only, never a message.
type Attempt struct {
	Provider string  `json:"provider"`
	Attempt  int     `json:"attempt,omitempty"` // 1-based try on this hop; 0 when skipped
	Outcome  Outcome `json:"outcome"`
	// Class, Code, Status and RetryAfter describe the failure; all are empty
	// when the attempt answered. Code is the error's code or an engine
	// finding (Code* constants).
	Class      sdk.Class     `json:"class,omitempty"`
	Code       string        `json:"code,omitempty"`
	Status     int           `json:"status,omitempty"`
	RetryAfter time.Duration `json:"retry_after_ns,omitempty"`
	Committed  bool          `json:"committed,omitempty"` // content had reached the client when it failed
	Wait       time.Duration `json:"wait_ns,omitempty"`   // slept before this attempt
	// Skipped counts the upstream stream events the plugin could not decode
	// and passed over (sdk.Stream.Skip); reported with a finish.
	Skipped int `json:"skipped,omitempty"`
	// Continue is how this attempt continued a broken-off answer
	// (ContinuePrefill, ContinueRegenerate); "" for an ordinary attempt.
	Continue string `json:"continue,omitempty"`
	// Cut, with OutcomeCut, is the bytes of text the client had when the
	// stream broke off.
	Cut     int64         `json:"cut_bytes,omitempty"`
	Latency time.Duration `json:"latency_ns"`
	// FirstToken is from the attempt's start until the provider's first
	// content event, whether or not it reached the client then (a Buffered
	// Run holds it back); zero when none came. Not in String.
	FirstToken time.Duration `json:"first_token_ns,omitempty"`
}

// Trail is the decision trail of one Run, in order.
type Trail []Attempt

// String renders the trail on one line of ASCII for an x-axon-trail header,
// attempts separated by ", ":
//
//	glm#1 retry transient/429 t=310ms, glm#2 fallback transient/529 wait=500ms t=120ms, ollama#1 ok t=1204ms
//
// Each attempt is provider#attempt (just the provider when skipped: "small
// skip", or with its reason "gpt skipped(no_structured_output)"), the
// outcome, class/status/code (those present) when it failed, then committed,
// (a continuation attempt puts "continue prefill|regenerate" before the
// outcome; a stream cut and continued reads "cut after N bytes"),
// skipped= (undecodable upstream events passed over), hint=,
// wait= and t= (latency) when they apply. Provider names and codes are
// reduced to [A-Za-z0-9._-].
func (t Trail) String() string {
	var b strings.Builder
	b.Grow(48 * len(t))
	for i, a := range t {
		if i > 0 {
			b.WriteString(", ")
		}
		a.writeTo(&b)
	}
	return b.String()
}

func (a Attempt) writeTo(b *strings.Builder) {
	writeToken(b, a.Provider)
	if a.Outcome == OutcomeSkip {
		if a.Code != "" { // why, when it is not a window that overflowed
			b.WriteString(" skipped(")
			writeToken(b, a.Code)
			b.WriteByte(')')
			return
		}
		b.WriteString(" skip")
		return
	}
	b.WriteByte('#')
	writeInt(b, int64(a.Attempt))
	if a.Continue != "" {
		b.WriteString(" continue ")
		writeToken(b, a.Continue)
	}
	b.WriteByte(' ')
	writeToken(b, string(a.Outcome))
	if a.Outcome == OutcomeCut {
		b.WriteString(" after ")
		writeInt(b, a.Cut)
		b.WriteString(" bytes")
	}
	if a.Class != "" || a.Status != 0 || a.Code != "" {
		b.WriteByte(' ')
		sep := ""
		if a.Class != "" {
			writeToken(b, string(a.Class))
			sep = "/"
		}
		if a.Status != 0 {
			b.WriteString(sep)
			writeInt(b, int64(a.Status))
			sep = "/"
		}
		if a.Code != "" {
			b.WriteString(sep)
			writeToken(b, a.Code)
		}
	}
	if a.Committed && a.Outcome != OutcomeCut {
		b.WriteString(" committed")
	}
	if a.Skipped > 0 {
		b.WriteString(" skipped=")
		writeInt(b, int64(a.Skipped))
	}
	writeOptionalMillis(b, " hint=", a.RetryAfter)
	writeOptionalMillis(b, " wait=", a.Wait)
	b.WriteString(" t=")
	writeMillis(b, a.Latency)
}

func writeOptionalMillis(b *strings.Builder, key string, d time.Duration) {
	if d > 0 {
		b.WriteString(key)
		writeMillis(b, d)
	}
}

func writeMillis(b *strings.Builder, d time.Duration) {
	writeInt(b, d.Round(time.Millisecond).Milliseconds())
	b.WriteString("ms")
}

func writeInt(b *strings.Builder, n int64) {
	var buf [20]byte
	b.Write(strconv.AppendInt(buf[:0], n, 10))
}

// writeToken writes s with every byte outside [A-Za-z0-9._-] replaced by
// '_', so names from config and codes from plugins cannot break the header
// syntax.
func writeToken(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
			b.WriteByte(c)
		default:
			b.WriteByte('_')
		}
	}
}
