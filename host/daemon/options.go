package daemon

import (
	"context"
	"slices"
	"sync"

	"github.com/axonhq/axon/sdk"
)

// unrenderedKey holds, in a client request's context, the request options
// the provider of the hop that started last does not render (by its
// Info.Options): when that hop answers, the front door names them in
// x-axon-ignored, so a client learns that its top_k never reached the
// model that answered.
type unrenderedKey struct{}

type unrendered struct {
	mu    sync.Mutex
	names []string
}

// withUnrendered gives ctx, one client request's, a place for the
// options its hops leave out.
func withUnrendered(ctx context.Context) context.Context {
	return context.WithValue(ctx, unrenderedKey{}, &unrendered{})
}

// noteUnrendered records, for the hop about to run req, the options req
// sets that info does not list; nothing when the plugin does not say
// (Info.Options nil). Each hop replaces what the one before it noted: the
// hop that commits is the last to have started.
func noteUnrendered(ctx context.Context, info sdk.Info, req *sdk.Request) {
	u, _ := ctx.Value(unrenderedKey{}).(*unrendered)
	if u == nil {
		return
	}
	var names []string
	if info.Options != nil {
		for k := range req.Options {
			if !slices.Contains(info.Options, k) {
				names = append(names, k)
			}
		}
		slices.Sort(names)
	}
	u.mu.Lock()
	u.names = names
	u.mu.Unlock()
}

// unrenderedOf is what the last hop started noted.
func unrenderedOf(ctx context.Context) []string {
	u, _ := ctx.Value(unrenderedKey{}).(*unrendered)
	if u == nil {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.names
}
