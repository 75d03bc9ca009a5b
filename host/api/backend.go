package api

import (
	"context"
	"errors"

	"github.com/axonhq/axon/sdk"
)

// Backend runs a canonical request on the chain named by model: a chain name
// ("default") or CHAIN/PROVIDER to pin one hop.
//
// Generate streams the answer into out and returns the Answer, also when it
// fails (with at least the Trail), so the axon headers are set on error
// responses too. On success the last event sent to out is sdk.EventFinish.
// On failure the error should carry an *sdk.Error, whose class picks the
// HTTP status. A failure after content reached out should be wrapped in a
// *CommittedError (see there).
//
// The out passed to Generate also implements Announcer: a backend calls
// Announce once the answering provider is known, before forwarding that
// provider's first event, so streamed responses name it in their headers.
type Backend interface {
	Generate(ctx context.Context, model string, req *sdk.Request, out sdk.Sink) (*Answer, error)
	// Models lists every name Generate accepts: chains and their
	// CHAIN/PROVIDER pins. It is the authority on which models exist.
	Models(ctx context.Context) []ModelInfo
}

// Answer says who answered a request, or tried to.
type Answer struct {
	Provider string // the provider block that answered (or last failed)
	Model    string // the upstream model that answered
	Chain    string // the chain that ran
	Trail    string // the one-line decision trail
}

// ModelInfo is one name a client may put in a request's model field.
type ModelInfo struct {
	ID       string // "default", or "default/glm" for a pin
	Chain    string // the chain it runs
	Provider string // the pinned provider; empty for a whole chain
	Model    string // the upstream model of a pin, when known
}

// Announcer is implemented by the sink a Backend receives. Announce records
// who is about to answer; headers are written from it when the first event
// reaches the client. Calls after the first event only update the trailer
// sent at the end of a stream.
type Announcer interface {
	Announce(a Answer)
}

// CommittedError marks a failure after content had already been streamed to
// the client: the answer broke off and no fallback may replace it. Any error
// for which errors.As finds an interface{ Committed() bool } reporting true
// counts, so the chain engine's own error type may implement the method
// instead of being wrapped.
//
// The front door also keeps its own record of what it wrote: a stream it has
// started always ends with an in-band error event on failure, whatever the
// error says. The mark is reported to the Observer.
type CommittedError struct {
	Err error
}

func (e *CommittedError) Error() string {
	if e.Err == nil {
		return "the response broke off after it had started"
	}
	return "the response broke off after it had started: " + e.Err.Error()
}

func (e *CommittedError) Unwrap() error   { return e.Err }
func (e *CommittedError) Committed() bool { return true }

// committed reports whether err says content had reached the client.
func committed(err error) bool {
	var c interface{ Committed() bool }
	return errors.As(err, &c) && c.Committed()
}
