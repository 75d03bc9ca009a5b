package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// StatsBackend is the optional ability of a Backend that records usage:
// the front door serves its rollups at GET /v1/stats, the report `axon
// stats --json` prints. A Backend without it answers 404 there.
type StatsBackend interface {
	// Stats returns the rollup of the usage since (a duration back such
	// as "7d", a date, an RFC 3339 time; "" for the default) grouped by
	// by ("" for the default), as a value to encode as JSON. A since or by
	// it cannot read is an error wrapping ErrStatsQuery.
	Stats(ctx context.Context, since, by string) (any, error)
}

// ErrStatsQuery marks a /v1/stats query the backend cannot read: a 400.
var ErrStatsQuery = errors.New("invalid stats query")

// stats serves GET /v1/stats?since=7d&by=provider, behind the token like
// every route but /healthz.
func (s *server) stats(w *recorder, r *http.Request) {
	sb, ok := s.backend.(StatsBackend)
	if !ok {
		writeError(w, openaiDialect{}, &wireError{kind: kindNotFound, code: "not_found", message: "this front door records no usage"})
		return
	}
	q := r.URL.Query()
	rep, err := sb.Stats(r.Context(), q.Get("since"), q.Get("by"))
	switch {
	case errors.Is(err, ErrStatsQuery):
		writeError(w, openaiDialect{}, &wireError{kind: kindInvalid, code: "invalid_value", message: err.Error()})
	case err != nil:
		writeError(w, openaiDialect{}, &wireError{kind: kindUnavailable, code: "stats_unavailable", message: fmt.Sprintf("usage stats: %v", err)})
	default:
		writeJSON(w, http.StatusOK, mustJSON(rep))
	}
}
