package daemon

import (
	"context"

	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/media"
	"github.com/axonhq/axon/sdk"
)

// infoGenerator is a hop's provider as the daemon has it: a plugin
// instance, which can say what it takes.
type infoGenerator interface {
	chain.Generator
	Info(ctx context.Context) (sdk.Info, error)
}

// pluginHop is a hop's provider as the daemon runs it. Before each call it
// reads what the plugin declares (a cached answer, no round trip): it
// notes the request options and features the plugin leaves out, for the
// x-axon-ignored header (options.go), and, when the plugin declares
// Info.InlineMedia, replaces the images and documents given by URL in the
// hop's copy of the request with their bytes (host/media). A hop that
// takes URLs gets them as they are, and nothing is fetched for it.
type pluginHop struct {
	in      infoGenerator
	fetcher *media.Fetcher
}

var _ chain.Generator = pluginHop{}

func (p pluginHop) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	// An Info that fails is the start that failed (a pin mismatch, a
	// binary of another API, ...), the very error Generate would return:
	// it is returned as it is, because a Generate after it would only
	// find the plugin in its restart backoff and hide the cause.
	info, err := p.in.Info(ctx)
	if err != nil {
		return err
	}
	noteUnrendered(ctx, info, req)
	if info.InlineMedia && media.HasURLParts(req) {
		if err := mediaSession(ctx, p.fetcher).Inline(ctx, req); err != nil {
			return err
		}
	}
	return p.in.Generate(ctx, req, out)
}
