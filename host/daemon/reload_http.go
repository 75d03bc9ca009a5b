package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
)

// ReloadHeader must be on POST /v1/reload: a browser page on another
// origin cannot send a custom header without a CORS preflight, which the
// front door never grants, so no web page can drive a reload.
const ReloadHeader = "X-Axon-Reload"

// ErrNoReload: the daemon was built without a way to read its
// configuration again (Options.Load).
var ErrNoReload = errors.New("this daemon cannot reload: it was not started from a configuration it can read again")

// Reload reads the configuration again (Options.Load: the same source,
// through the same checks as at start) and applies it (Daemon.Reload). A
// configuration the checks refuse changes nothing; its error says why.
func (f *FrontDoor) Reload(ctx context.Context) (Reloaded, error) {
	if f.load == nil {
		return Reloaded{}, ErrNoReload
	}
	cfg, lock, err := f.load(ctx)
	if err != nil {
		return Reloaded{}, err
	}
	res, err := f.daemon.Reload(cfg, lock)
	if err != nil {
		f.logger.Error("reload failed; the running configuration stays", "error", err)
	}
	return res, err
}

// reloadHandler serves POST /v1/reload, behind the front door's token:
// `axon reload` and scripts use it; its answer is the Reloaded as JSON.
type reloadHandler struct{ f *FrontDoor }

func (h reloadHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path != "/v1/reload":
		h.Refuse(w, http.StatusNotFound, "not_found", "no such route; POST /v1/reload reloads the configuration")
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		h.Refuse(w, http.StatusMethodNotAllowed, "method_not_allowed", "POST /v1/reload reloads the configuration")
	case r.Header.Get(ReloadHeader) == "" || r.Header.Get("Origin") != "":
		h.Refuse(w, http.StatusForbidden, "forbidden", "a reload needs the "+ReloadHeader+" header and is never taken from a web page")
	default:
		res, err := h.f.Reload(r.Context())
		if err != nil {
			h.Refuse(w, http.StatusUnprocessableEntity, "reload_failed", err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(res)
	}
}

func (reloadHandler) Refuse(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"type": code, "code": code, "message": message}})
}
