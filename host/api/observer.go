package api

import (
	"time"

	"github.com/axonhq/axon/sdk"
)

// Observer is told about every request when its response is complete, for
// metrics and logs. ObserveRequest runs on the request's goroutine after the
// last byte was written: it must return quickly and never block.
type Observer interface {
	ObserveRequest(r Record)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(r Record)

func (f ObserverFunc) ObserveRequest(r Record) { f(r) }

// StatusClientClosedRequest is the Status of a request the client
// abandoned: 499, the number nginx gave "client closed request". No client
// ever receives it.
const StatusClientClosedRequest = 499

// Record describes one completed request. It holds names, classes, codes and
// numbers only, never message text.
type Record struct {
	Route  string // the route pattern, e.g. "POST /v1/messages" (a mount's own, when it has them); "" when none matched
	Model  string // the model field as the client sent it
	Stream bool
	// Status is the HTTP status sent. A stream that failed after it started
	// has status 200 and InBand set. A request whose client went away before
	// its response was complete has StatusClientClosedRequest (and
	// Canceled), whatever had been sent: it is neither a success nor a
	// server error.
	Status int
	// Class is the error class of a failed generation ("" on success, for
	// failures the front door found itself, such as bad JSON, and for
	// requests the client abandoned).
	Class sdk.Class
	// Code is the wire error code sent to the client, "" on success.
	Code      string
	InBand    bool // the failure was reported inside a started stream
	Committed bool // the failure came after the target committed to a provider (Target.Generate's commit)
	// Canceled: the client went away before the response was complete. Class,
	// Code, InBand and Committed are then empty: nothing more was reported.
	Canceled  bool
	Provider  string
	Chain     string
	Latency   time.Duration // from the request's arrival to the last byte
	FirstByte time.Duration // to the first streamed byte; 0 when nothing was streamed
	Events    int           // canonical events the backend sent
	// Ignored lists the request's fields that changed nothing, as the
	// x-axon-ignored header does (comma-separated JSON paths), for the log.
	Ignored string
}
