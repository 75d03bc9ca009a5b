package sdktest

import (
	"context"

	"github.com/axonhq/axon/sdk"
)

// EgressFunc adapts a function to sdk.Egress, for tests that answer (or
// fail) a plugin's request without an HTTP server: a transport error, a
// redirect, a body that breaks.
type EgressFunc func(ctx context.Context, req *sdk.EgressRequest) (*sdk.EgressResponse, error)

var _ sdk.Egress = EgressFunc(nil)

// Do calls f.
func (f EgressFunc) Do(ctx context.Context, req *sdk.EgressRequest) (*sdk.EgressResponse, error) {
	return f(ctx, req)
}
