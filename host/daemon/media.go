package daemon

import (
	"context"
	"sync"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/media"
	"github.com/axonhq/axon/sdk"
)

// newFetcher is the media fetcher of configuration m.
func newFetcher(m config.Media) (*media.Fetcher, error) {
	return media.New(media.Config{
		Off: !m.Fetch, Allow: m.Allow,
		MaxPartBytes: m.MaxPartBytes, MaxRequestBytes: m.MaxRequestBytes, Timeout: m.Timeout,
	})
}

// infoGenerator is a hop's provider as the daemon has it: a plugin
// instance, which can say what it takes.
type infoGenerator interface {
	chain.Generator
	Info(ctx context.Context) (sdk.Info, error)
}

// inlining is a hop's provider that notes the request options its plugin
// does not render (options.go) and, when its plugin declares
// Info.InlineMedia, first replaces the images and documents given by URL
// in the hop's copy of the request with their bytes (host/media). A hop
// that takes URLs gets them as they are, and nothing is fetched for it.
type inlining struct {
	in      infoGenerator
	fetcher *media.Fetcher
}

var _ chain.Generator = inlining{}

func (p inlining) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	urls := media.HasURLParts(req)
	if urls || len(req.Options) > 0 || req.ToolChoice != (sdk.ToolChoice{}) || hasBreakpoint(req) {
		// An Info that fails means the plugin cannot start: Generate
		// reports that, classified, as it would without media.
		if info, err := p.in.Info(ctx); err == nil {
			noteUnrendered(ctx, info, req)
			if urls && info.InlineMedia {
				if err := mediaSession(ctx, p.fetcher).Inline(ctx, req); err != nil {
					return err
				}
			}
		}
	}
	return p.in.Generate(ctx, req, out)
}

// mediaKey holds, in a client request's context, the media session its
// hops share: each URL is fetched once however many hops and retries
// need it.
type mediaKey struct{}

type mediaHolder struct {
	ctx context.Context // the client request's: the session's fetches end with it
	mu  sync.Mutex
	s   *media.Session
}

// withMediaSession gives ctx, one client request's, a place for its
// media session, made on the first fetch.
func withMediaSession(ctx context.Context) context.Context {
	return context.WithValue(ctx, mediaKey{}, &mediaHolder{ctx: ctx})
}

// mediaSession is ctx's session, or a new one for this call alone when the
// caller made no place for one.
func mediaSession(ctx context.Context, f *media.Fetcher) *media.Session {
	h, _ := ctx.Value(mediaKey{}).(*mediaHolder)
	if h == nil {
		return f.NewSession(ctx)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.s == nil {
		h.s = f.NewSession(h.ctx)
	}
	return h.s
}
