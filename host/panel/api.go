package panel

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/axonhq/axon/host/api"
)

// maxBody bounds every request body the panel reads.
const maxBody = 64 << 10

// errorBody is every JSON error: {"error":{"message":…}}.
type errorBody struct {
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"message":"the panel could not encode its answer"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, status int, msg string) {
	var e errorBody
	e.Error.Message = msg
	writeJSON(w, status, e)
}

// decodeJSON reads r's body, a JSON object of at most maxBody bytes, into
// v, answering the error itself when it cannot.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "the body must be JSON (Content-Type: application/json)")
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", maxBody))
		return false
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "the body is not the JSON expected: "+err.Error())
		return false
	}
	return true
}

// serveFace is GET /panel/api/faces/{display}.png.
func (p *panel) serveFace(w http.ResponseWriter, file string) {
	name, ok := strings.CutSuffix(file, ".png")
	if !ok || name == "" {
		writeError(w, http.StatusNotFound, "a face is /panel/api/faces/DISPLAY.png")
		return
	}
	for _, f := range p.src.Faces() {
		if f.Display == name && len(f.PNG) > 0 {
			w.Header().Set("Content-Type", "image/png")
			w.Header().Set("Cache-Control", "no-store")
			_, _ = w.Write(f.PNG)
			return
		}
	}
	writeError(w, http.StatusNotFound, "no display "+name+" shows a face")
}

// statsGroups are the ?by= values the panel passes on.
var statsGroups = map[string]bool{"": true, "provider": true, "tier": true, "day": true, "chain": true, "source": true}

// serveStats is GET /panel/api/stats?since=7d&by=provider: the report of
// GET /v1/stats, as the Source encodes it.
func (p *panel) serveStats(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	since, by := q.Get("since"), q.Get("by")
	if !statsGroups[by] {
		writeError(w, http.StatusBadRequest, "by "+by+": use provider, tier, chain, day or source")
		return
	}
	if len(since) > 64 {
		writeError(w, http.StatusBadRequest, "since: too long")
		return
	}
	if since == "" {
		since = "7d"
	}
	rep, err := p.src.Stats(r.Context(), since, by)
	switch {
	case errors.Is(err, api.ErrStatsQuery):
		writeError(w, http.StatusBadRequest, err.Error())
	case err != nil:
		p.log.Warn("usage stats", "error", err)
		writeError(w, http.StatusServiceUnavailable, "usage stats: "+err.Error())
	default:
		writeJSON(w, http.StatusOK, rep)
	}
}
