package daemon

import (
	"context"
	"sync"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/media"
)

// newFetcher is the media fetcher of configuration m.
func newFetcher(m config.Media) (*media.Fetcher, error) {
	return media.New(media.Config{
		Off: !m.Fetch, Allow: m.Allow,
		MaxPartBytes: m.MaxPartBytes, MaxRequestBytes: m.MaxRequestBytes, Timeout: m.Timeout,
	})
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
