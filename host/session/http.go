package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/axonhq/axon/host/walarchive"
)

// HandlerOption configures Handler.
type HandlerOption func(*handlerConfig)

type handlerConfig struct {
	heartbeat time.Duration
}

// WithHeartbeat sets how often an idle event stream gets an SSE comment,
// so proxies keep it open (default 15s).
func WithHeartbeat(d time.Duration) HandlerOption {
	return func(c *handlerConfig) {
		if d > 0 {
			c.heartbeat = d
		}
	}
}

// maxSendBody bounds a POST body: a prompt and a system prompt of 1 MiB
// each, JSON-escaped.
const maxSendBody = 5 << 20

// Handler serves the sessions API under /v1/sessions:
//
//	POST /v1/sessions                     create or send: admit a run (201; 200 for an existing key)
//	GET  /v1/sessions                     list sessions with their runs
//	GET  /v1/sessions/{id}                one session: key and runs
//	GET  /v1/sessions/{id}/runs           the run index
//	GET  /v1/sessions/{id}/runs/{run}     one run
//	GET  /v1/sessions/{id}/usage          usage facts, one per model step
//	GET  /v1/sessions/{id}/transcript     control events, paged (?after=CURSOR&limit=N)
//	GET  /v1/sessions/{id}/events         SSE: control lane from a cursor, plus display deltas
//	POST /v1/sessions/{id}/cancel         cancel the open run
//	POST /v1/sessions/{id}/resume         resume the paused run
//
// It checks no token: `axon serve` mounts it inside the front door
// (host/api), which checks the token of every route once and asks Refuse
// for the refusal in this API's error format.
func (m *Manager) Handler(opts ...HandlerOption) *Handler {
	cfg := handlerConfig{heartbeat: 15 * time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	h := &Handler{m: m, cfg: cfg, mux: http.NewServeMux()}
	h.mux.HandleFunc("POST /v1/sessions", h.send)
	h.mux.HandleFunc("GET /v1/sessions", h.list)
	h.mux.HandleFunc("GET /v1/sessions/{id}", h.session)
	h.mux.HandleFunc("GET /v1/sessions/{id}/runs", h.runs)
	h.mux.HandleFunc("GET /v1/sessions/{id}/runs/{run}", h.run)
	h.mux.HandleFunc("GET /v1/sessions/{id}/usage", h.usage)
	h.mux.HandleFunc("GET /v1/sessions/{id}/transcript", h.transcript)
	h.mux.HandleFunc("GET /v1/sessions/{id}/events", h.events)
	h.mux.HandleFunc("POST /v1/sessions/{id}/cancel", h.cancel)
	h.mux.HandleFunc("POST /v1/sessions/{id}/resume", h.resume)
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, fmt.Errorf("%w: no route %s %s", ErrNotFound, r.Method, r.URL.Path))
	})
	return h
}

var _ http.Handler = (*Handler)(nil)

// Handler serves the sessions API (see Manager.Handler).
type Handler struct {
	m   *Manager
	cfg handlerConfig
	mux *http.ServeMux
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Refuse answers a request the front door refused before handing it on (a
// missing or wrong token) in this API's error format: {"error":{"type":
// code, "message": message}}.
func (h *Handler) Refuse(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, errorBody(code, message))
}

// sendRequest is the body of POST /v1/sessions.
type sendRequest struct {
	Key
	Params
}

func (h *Handler) send(w http.ResponseWriter, r *http.Request) {
	var req sendRequest
	if err := decodeBody(w, r, &req); err != nil {
		writeError(w, err)
		return
	}
	adm, err := h.m.Send(r.Context(), req.Key, req.Params)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Location", "/v1/sessions/"+adm.SessionID+"/runs/"+adm.RunID)
	status := http.StatusCreated
	if adm.Existing {
		status = http.StatusOK
	}
	writeJSON(w, status, adm)
}

func (h *Handler) list(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"sessions": h.m.Sessions()})
}

func (h *Handler) session(w http.ResponseWriter, r *http.Request) {
	info, err := h.m.Session(r.PathValue("id"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, info.summary())
}

func (h *Handler) runs(w http.ResponseWriter, r *http.Request) {
	info, err := h.m.Session(r.PathValue("id"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": info.Runs})
}

func (h *Handler) run(w http.ResponseWriter, r *http.Request) {
	info, err := h.m.Session(r.PathValue("id"))
	if err != nil {
		writeError(w, err)
		return
	}
	for _, run := range info.Runs {
		if run.RunID == r.PathValue("run") {
			writeJSON(w, http.StatusOK, run)
			return
		}
	}
	writeError(w, fmt.Errorf("%w: run %q", ErrNotFound, r.PathValue("run")))
}

func (h *Handler) usage(w http.ResponseWriter, r *http.Request) {
	info, err := h.m.Session(r.PathValue("id"))
	if err != nil {
		writeError(w, err)
		return
	}
	usage := info.Usage
	if usage == nil {
		usage = []UsageFact{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"usage": usage})
}

const (
	defaultPage = 100
	maxPage     = 1000
)

func (h *Handler) transcript(w http.ResponseWriter, r *http.Request) {
	after, err := ParseCursor(r.URL.Query().Get("after"))
	if err != nil {
		writeError(w, err)
		return
	}
	limit := defaultPage
	if s := r.URL.Query().Get("limit"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > maxPage {
			writeError(w, invalidf("limit", "must be an integer from 1 to %d", maxPage))
			return
		}
	}
	page, err := h.m.Transcript(r.Context(), r.PathValue("id"), after, limit)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, page)
}

// runRequest is the optional body of cancel and resume.
type runRequest struct {
	RunID string `json:"run_id,omitempty"`
}

func (h *Handler) cancel(w http.ResponseWriter, r *http.Request) { h.onRun(w, r, h.m.Cancel) }
func (h *Handler) resume(w http.ResponseWriter, r *http.Request) { h.onRun(w, r, h.m.Resume) }

// onRun answers 202 once the run has been told: a cancelled run is sealed
// at its next boundary, a resumed one goes on in the background.
func (h *Handler) onRun(w http.ResponseWriter, r *http.Request, do func(context.Context, string, string) (string, error)) {
	var req runRequest
	if err := decodeBody(w, r, &req); err != nil && !errors.Is(err, errEmptyBody) {
		writeError(w, err)
		return
	}
	id := r.PathValue("id")
	run, err := do(r.Context(), id, req.RunID)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"session_id": id, "run_id": run})
}

// errEmptyBody: the request had no body (allowed where the body is optional).
var errEmptyBody = &InvalidError{Field: "body", Reason: "is empty: send a JSON object"}

func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	body := http.MaxBytesReader(w, r.Body, maxSendBody)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errEmptyBody
		}
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return invalidf("body", "is larger than %d bytes", maxSendBody)
		}
		return invalidf("body", "%v", err)
	}
	if dec.More() {
		return invalidf("body", "holds more than one JSON value")
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.Encode(v)
}

func errorBody(typ, msg string) map[string]any {
	return map[string]any{"error": map[string]string{"type": typ, "message": msg}}
}

// writeError maps err to its status and error type.
func writeError(w http.ResponseWriter, err error) {
	status, typ := errorStatus(err)
	writeJSON(w, status, errorBody(typ, err.Error()))
}

func errorStatus(err error) (int, string) {
	switch {
	case errors.Is(err, ErrInvalid):
		return http.StatusBadRequest, "invalid_request"
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound, "not_found"
	case errors.Is(err, ErrBusy):
		return http.StatusConflict, "session_busy"
	case errors.Is(err, ErrPaused):
		return http.StatusConflict, "run_paused"
	case errors.Is(err, ErrKeyReused):
		return http.StatusConflict, "idempotency_key_reused"
	case errors.Is(err, ErrNoOpenRun):
		return http.StatusConflict, "no_open_run"
	case errors.Is(err, ErrModelUnservable):
		return http.StatusConflict, "model_unservable"
	case errors.Is(err, ErrLogFailed):
		return http.StatusServiceUnavailable, "session_log_failed"
	case errors.Is(err, ErrLocked):
		return http.StatusLocked, "session_locked"
	case errors.Is(err, ErrShuttingDown):
		return http.StatusServiceUnavailable, "shutting_down"
	case errors.Is(err, ErrUnavailable):
		return http.StatusServiceUnavailable, "unavailable"
	case errors.Is(err, walarchive.ErrDamaged):
		// The session's archived log is not what its container's manifest
		// says: nothing the client can fix, nothing restored; axon wal
		// verify names the damage.
		return http.StatusInternalServerError, "archive_damaged"
	}
	return http.StatusInternalServerError, "internal"
}
