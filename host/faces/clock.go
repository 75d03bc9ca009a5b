package faces

import (
	"context"
	"errors"
	"time"

	"github.com/axonhq/axon/host/chain"
)

// The faces keep time with a chain.Clock, so one clock can be handed to
// both: how long happy shows, the bound on a Show and the panel's rate
// limit. Tests inject a fake; a nil Options.Clock means chain.SystemClock.

// errTimeout is the cause of a context that withTimeout cancelled.
var errTimeout = errors.New("display did not answer within the show timeout")

// withTimeout is context.WithTimeout on clk rather than the wall clock.
// When d elapses, ctx is cancelled with cause errTimeout.
func withTimeout(ctx context.Context, clk chain.Clock, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	t := clk.AfterFunc(d, func() { cancel(errTimeout) })
	return ctx, func() {
		t.Stop()
		cancel(context.Canceled)
	}
}
