package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	usagestats "github.com/axonhq/axon/host/usage" // "usage" names a test helper of this package
)

// StatsBackend is the optional ability of a Backend that records usage:
// the front door serves its rollups at GET /v1/stats, the same report
// `axon stats --json` prints. A Backend without it answers 404 there.
type StatsBackend interface {
	Stats(ctx context.Context, q usagestats.Query) (*usagestats.Report, error)
}

// stats serves GET /v1/stats?since=7d&by=provider|tier|chain|day, behind
// the token like every route but /healthz.
func (s *server) stats(w *recorder, r *http.Request) {
	sb, ok := s.backend.(StatsBackend)
	if !ok {
		writeError(w, openaiDialect{}, &wireError{kind: kindNotFound, code: "not_found", message: "this front door records no usage"})
		return
	}
	now := s.cfg.now()
	since, err := usagestats.ParseSince(r.URL.Query().Get("since"), now)
	if err != nil {
		writeError(w, openaiDialect{}, invalidf("since", "%v", err))
		return
	}
	by, err := usagestats.ParseBy(r.URL.Query().Get("by"))
	if err != nil {
		writeError(w, openaiDialect{}, invalidf("by", "%v", err))
		return
	}
	rep, err := sb.Stats(r.Context(), usagestats.Query{Since: since, Until: now.Add(time.Millisecond), By: by})
	if err != nil {
		writeError(w, openaiDialect{}, &wireError{kind: kindUnavailable, code: "stats_unavailable", message: fmt.Sprintf("usage stats: %v", err)})
		return
	}
	writeJSON(w, http.StatusOK, mustJSON(rep))
}
