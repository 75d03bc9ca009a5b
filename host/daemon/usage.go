package daemon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/axonhq/axon/host/api"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/usage"
)

// Sourced is the daemon's chains as one source runs them: with a usage
// writer (Options.Usage), every Run records a fact naming the source.
type Sourced struct {
	b   *Daemon
	src usage.Source
}

// For returns the chains as src runs them.
func (b *Daemon) For(src usage.Source) Sourced { return Sourced{b: b, src: src} }

// Chain returns the chain for a model name, "CHAIN" or "CHAIN/PROVIDER",
// recording its turns as the source's.
func (s Sourced) Chain(model string) (*chain.Chain, error) {
	g := s.b.current()
	if chains, ok := g.sourced[s.src]; ok {
		return lookup(chains, model)
	}
	return lookup(g.chains, model)
}

// sourceKey carries the usage.Source of a front door request to its
// Target (route.Generate): the front door serves its three wire formats
// through one Backend, which only the path tells apart.
type sourceKey struct{}

// withSources marks each generation request with the wire format it came
// in, for its usage fact.
func withSources(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var src usage.Source
		switch r.URL.Path {
		case "/v1/chat/completions":
			src = usage.SourceOpenAI
		case "/v1/messages":
			src = usage.SourceAnthropic
		case "/v1/responses":
			src = usage.SourceResponses
		}
		if src != "" {
			r = r.WithContext(context.WithValue(r.Context(), sourceKey{}, src))
		}
		h.ServeHTTP(w, r)
	})
}

func sourceOf(ctx context.Context) usage.Source {
	src, _ := ctx.Value(sourceKey{}).(usage.Source)
	return src
}

// statsBackend is the front door's Backend with the usage store behind
// GET /v1/stats.
type statsBackend struct {
	*Daemon
	store *usage.Store // nil: the store could not be opened
}

var _ api.StatsBackend = statsBackend{}

// errNoUsageStore: GET /v1/stats while the usage store is unavailable.
var errNoUsageStore = errors.New("the usage store is not available (see the log at startup)")

func (s statsBackend) Stats(ctx context.Context, sinceArg, byArg string) (any, error) {
	now := time.Now()
	since, err := usage.ParseSince(sinceArg, now)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", api.ErrStatsQuery, err)
	}
	by, err := usage.ParseBy(byArg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", api.ErrStatsQuery, err)
	}
	if s.store == nil {
		return nil, errNoUsageStore
	}
	return s.store.Report(ctx, usage.Query{Since: since, Until: now.Add(time.Millisecond), By: by})
}
