package chain

import (
	"errors"
	"fmt"
	"time"

	"github.com/axonhq/axon/sdk"
)

// ErrNoSuchHop is returned by Pin for a provider the chain does not have.
var ErrNoSuchHop = errors.New("no such provider in chain")

// ExhaustedError is Run's failure when the chain ends without an answer and
// nothing reached the client: every eligible hop failed, or a hop refused
// (content_filter) and the policy does not fall back on refusals. Last is
// the final hop failure, so errors.Is(err, sdk.ErrTransient) and
// sdk.ClassOf(err) answer for it.
type ExhaustedError struct {
	Chain string
	Trail Trail
	Last  error
}

func (e *ExhaustedError) Error() string {
	return fmt.Sprintf("chain %q: no provider answered after %d attempts: %v", e.Chain, e.attempts(), e.Last)
}

func (e *ExhaustedError) Unwrap() error { return e.Last }

// RetryAfter is the shortest Retry-After hint any attempt carried, 0 when
// none did: the earliest time one of the hops said it may answer again.
func (e *ExhaustedError) RetryAfter() time.Duration {
	var d time.Duration
	for _, a := range e.Trail {
		if a.RetryAfter > 0 && (d == 0 || a.RetryAfter < d) {
			d = a.RetryAfter
		}
	}
	return d
}

func (e *ExhaustedError) attempts() int {
	n := 0
	for _, a := range e.Trail {
		if a.Outcome != OutcomeSkip {
			n++
		}
	}
	return n
}

// CommittedError is Run's failure when the answering hop failed after its
// first content event was forwarded to the client. The chain does not fall
// back then: the caller must end the client's stream with an explicit error
// in the client's wire format, never with a clean end. Err is the hop's
// failure (or the client sink's, when the client went away).
type CommittedError struct {
	Chain    string
	Provider string
	Trail    Trail
	Err      error
}

func (e *CommittedError) Error() string {
	return fmt.Sprintf("chain %q: %s failed after the response had started: %v", e.Chain, e.Provider, e.Err)
}

func (e *CommittedError) Unwrap() error { return e.Err }

// Engine-made failures, built fresh each time so no caller can alter a
// shared value. Their messages are fixed text: safe to show a client.
func timeoutError(what string, d time.Duration) *sdk.Error {
	return &sdk.Error{Class: sdk.ClassTransient, Code: sdk.ErrTimeout.Code, Message: fmt.Sprintf("%s timeout (%s) expired", what, d)}
}

func incompleteError() *sdk.Error {
	return &sdk.Error{Class: sdk.ClassTransient, Code: CodeIncomplete, Message: "the stream ended without a finish event"}
}

func refusalError() *sdk.Error {
	return &sdk.Error{Class: sdk.ClassContentFilter, Code: CodeRefusal, Message: "the model refused before any content"}
}

func lateEventError() *sdk.Error {
	return &sdk.Error{Class: sdk.ClassPermanent, Code: "late_event", Message: "event sent after Generate returned"}
}

func afterFinishError() *sdk.Error {
	return &sdk.Error{Class: sdk.ClassPermanent, Code: CodeAfterFinish, Message: "event sent after the finish event"}
}

// unclassified gives err, which carries no class, the permanent class: the
// chain does not retry what it cannot read, and falls back.
func unclassified(err error) error {
	return fmt.Errorf("%w: %w", &sdk.Error{Class: sdk.ClassPermanent, Code: CodeUnclassified, Message: "provider failed without an error class"}, err)
}
