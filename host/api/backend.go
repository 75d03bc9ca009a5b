package api

import (
	"context"

	"github.com/axonhq/axon/sdk"
)

// Backend is what the front door runs requests on: in production the
// daemon, over its chains.
type Backend interface {
	// Resolve finds what a request's model field names: a chain ("default")
	// or one provider of a chain, pinned ("default/glm"). ok is false when
	// it names nothing; the client is then shown what Models lists. The
	// front door resolves each request's model once, with this call.
	Resolve(model string) (t Target, ok bool)
	// Models lists every name Resolve accepts: chains and their
	// CHAIN/PROVIDER pins, for GET /v1/models and the 404 of an unknown name.
	Models(ctx context.Context) []ModelInfo
}

// Target is a resolved model name: the chain, or the pin, that runs it.
type Target interface {
	// Chain is the chain the name runs on; for a pin, the chain it pins a
	// provider of. Requests in flight are bounded per chain, and the
	// x-axon-chain header names it until an Answer says more.
	Chain() string
	// Generate runs req and streams the answer into out.
	//
	// commit (never nil) is called once at most, with the provider that
	// answers, its model and the trail so far, just before that provider's
	// first content event is sent to out: a streamed response names it in
	// its headers. A failure after commit is reported to the client in band.
	//
	// On success the last event sent to out is sdk.EventFinish, and nothing
	// is sent after it: the front door trusts this (the chain engine
	// guarantees it) and ends a stream cleanly exactly when Generate returns
	// nil. The Answer is returned on failure too (with at least the Trail),
	// so the axon headers are set on error responses. A failure should carry
	// an *sdk.Error, whose class picks the HTTP status.
	//
	// d says how the client takes the answer. For Whole, the target holds
	// the whole answer back (the chain's Buffered run) and calls commit and
	// out only once it is complete, so a provider failing halfway is
	// retried or replaced, never reported as an answer that broke off.
	Generate(ctx context.Context, req *sdk.Request, out sdk.Sink, commit func(Answer), d Delivery) (*Answer, error)
}

// Delivery is how a client takes its answer.
type Delivery int

const (
	Streamed Delivery = iota // server-sent events, each as it comes
	Whole                    // one JSON body, once the answer is complete
)

// Answer says who answered a request, or tried to.
type Answer struct {
	Provider string // the provider block that answered (or last failed)
	Model    string // the upstream model that answered
	Chain    string // the chain that ran ("default", or "default/glm" for a pin)
	Trail    string // the one-line decision trail
	// Unrendered names the request options (sdk.Request.Options keys) and
	// features (sdk.Lack* names) the provider that answers leaves out of
	// its wire; the front door lists them, as the client's fields, in
	// x-axon-ignored.
	Unrendered []string
}

// ModelInfo is one name a client may put in a request's model field.
type ModelInfo struct {
	ID       string // "default", or "default/glm" for a pin
	Chain    string // the chain it runs
	Provider string // the pinned provider; empty for a whole chain
	Model    string // the upstream model of a pin, when known
	// Tier, GoodAt and Gate describe a pin's provider: its tier ("local",
	// "sub", "api" or ""), what it is good at, and why routing never sends
	// it a request ("paid", "disabled"; "" when it may). A gated provider
	// is listed all the same, so a client sees what is configured.
	Tier   string
	GoodAt []string
	Gate   string
	// Facts are the model catalog's facts of a pin's model; nil for a
	// whole chain (many models) or when there is no catalog.
	Facts *ModelFacts
}
