package panel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// sse writes server-sent events; safe for concurrent use. Once closed it
// drops what it is given.
type sse struct {
	mu     sync.Mutex
	w      http.ResponseWriter
	rc     *http.ResponseController
	err    error
	closed bool
}

// startSSE answers r with an event stream.
func startSSE(w http.ResponseWriter) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives the server's write timeout
	w.WriteHeader(http.StatusOK)
	s := &sse{w: w, rc: rc}
	s.comment("axon panel")
	return s
}

// event sends one event with v as JSON data, reporting whether the
// client still reads.
func (s *sse) event(name string, v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{}`)
	}
	return s.write(fmt.Sprintf("event: %s\ndata: %s\n\n", name, b))
}

func (s *sse) comment(text string) bool { return s.write(": " + text + "\n\n") }

func (s *sse) write(frame string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.err != nil {
		return false
	}
	if _, s.err = s.w.Write([]byte(frame)); s.err == nil {
		s.err = s.rc.Flush()
	}
	return s.err == nil
}

func (s *sse) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// serveEvents is GET /panel/api/events: every turn and face change from
// Source.Watch as an event (turn, face; lost when updates were dropped),
// a keepalive comment when idle, until the client goes.
func (p *panel) serveEvents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	updates := p.src.Watch(ctx)
	s := startSSE(w)
	defer s.close()
	tick := time.NewTicker(p.keepalive)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if !s.comment("keepalive") {
				return
			}
		case u, ok := <-updates:
			if !ok {
				return
			}
			if u.Lost > 0 && !s.event("lost", struct {
				Lost int `json:"lost"`
			}{u.Lost}) {
				return
			}
			if u.Turn != nil && !s.event("turn", u.Turn) {
				return
			}
			if u.Face != nil && !s.event("face", u.Face) {
				return
			}
		}
	}
}

// maxPrompt bounds a prompt to try.
const maxPrompt = 32 << 10

// tryError is the error event of a try.
type tryError struct {
	Message  string `json:"message"`
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	Trail    string `json:"trail"`
}

// serveTry is POST /panel/api/try {"chain","prompt"}: the answer as delta
// events, then done (a TryResult) or error.
func (p *panel) serveTry(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Chain  string `json:"chain"`
		Prompt string `json:"prompt"`
	}
	if !decodeJSON(w, r, &req) {
		return
	}
	if msg := p.checkTry(r, req.Chain, req.Prompt); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	s := startSSE(w)
	defer s.close()
	res, err := p.src.Try(r.Context(), req.Chain, req.Prompt, func(text string) {
		s.event("delta", struct {
			Text string `json:"text"`
		}{text})
	})
	if err != nil {
		p.log.Debug("try failed", "chain", req.Chain, "error", err)
		s.event("error", tryError{Message: err.Error(), Provider: res.Provider, Model: res.Model, Trail: res.Trail})
		return
	}
	s.event("done", res)
}

// checkTry says what is wrong with a try, "" when nothing: the chain (or
// CHAIN/PROVIDER pin) must be the roster's, the prompt non-empty.
func (p *panel) checkTry(r *http.Request, target, prompt string) string {
	switch {
	case strings.TrimSpace(prompt) == "":
		return "prompt: field required"
	case len(prompt) > maxPrompt:
		return fmt.Sprintf("prompt: over %d bytes", maxPrompt)
	case target == "":
		return "chain: field required"
	}
	name, pin, pinned := strings.Cut(target, "/")
	ro := p.src.Roster(r.Context())
	for _, c := range ro.Chains {
		if c.Name != name {
			continue
		}
		if pinned {
			for _, pr := range c.Providers {
				if pr == pin {
					return ""
				}
			}
			return fmt.Sprintf("chain: %s has no provider %q", name, pin)
		}
		return ""
	}
	return fmt.Sprintf("chain: no chain %q", name)
}
