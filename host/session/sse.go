package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// events serves GET /v1/sessions/{id}/events as Server-Sent Events.
//
// The control lane resumes from the cursor in the Last-Event-ID header
// (what EventSource sends when it reconnects) or else the after query
// parameter ("0", the default, is the start of the session). Each control
// event carries its cursor as its SSE id; display deltas and gaps carry
// none, so a reconnect resumes after the last control event. display=false
// leaves out the display lane; run=RUN ends the stream (with an "end"
// event) once that run finishes or pauses.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	raw := r.Header.Get("Last-Event-ID")
	if raw == "" {
		raw = q.Get("after")
	}
	after, err := ParseCursor(raw)
	if err != nil {
		writeError(w, err)
		return
	}
	display := true
	switch q.Get("display") {
	case "", "true", "1":
	case "false", "0":
		display = false
	default:
		writeError(w, invalidf("display", "must be true or false"))
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, errors.New("session: the response writer cannot stream"))
		return
	}
	sw := &sseWriter{w: w, f: flusher}
	stopBeat := func() {}
	opts := FollowOptions{Display: display, Run: q.Get("run"), Ready: func() {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
		sw.comment("axon session events")
		stopBeat = sw.heartbeat(h.cfg.heartbeat)
	}}
	err = h.m.Follow(r.Context(), r.PathValue("id"), after, opts, sw.item)
	stopBeat()
	switch {
	case !sw.started():
		writeError(w, err)
	case err == nil:
		sw.send("", "end", map[string]string{"reason": "run_ended"})
	case errors.Is(err, ErrShuttingDown):
		sw.send("", "end", map[string]string{"reason": "shutting_down"})
	case errors.Is(err, ErrLogFailed):
		// Reconnect from the last event id: the run's interrupted end is
		// there once the log can be written.
		sw.send("", "end", map[string]string{"reason": "session_log_failed", "error": err.Error()})
	}
}

// sseWriter writes SSE frames; the heartbeat writes from its own goroutine.
type sseWriter struct {
	mu     sync.Mutex
	w      io.Writer
	f      http.Flusher
	began  bool
	failed error
}

func (s *sseWriter) started() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.began
}

func (s *sseWriter) item(it Item) error {
	if it.Event != nil {
		return s.send(it.Event.Cursor.String(), it.Event.Type, it.Event)
	}
	return s.send("", it.Delta.Type, it.Delta)
}

func (s *sseWriter) send(id, event string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	frame := "event: " + event + "\ndata: " + string(b) + "\n\n"
	if id != "" {
		frame = "id: " + id + "\n" + frame
	}
	return s.write(frame)
}

func (s *sseWriter) comment(text string) error { return s.write(": " + text + "\n\n") }

func (s *sseWriter) write(frame string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.began = true
	if s.failed != nil {
		return s.failed
	}
	if _, err := io.WriteString(s.w, frame); err != nil {
		s.failed = fmt.Errorf("session: event stream: %w", err)
		return s.failed
	}
	s.f.Flush()
	return nil
}

// heartbeat writes a comment every d until the returned stop is called.
func (s *sseWriter) heartbeat(d time.Duration) (stop func()) {
	t := time.NewTicker(d)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-t.C:
				if s.comment("ping") != nil {
					return
				}
			case <-quit:
				return
			}
		}
	}()
	return func() {
		t.Stop()
		close(quit)
		wg.Wait()
	}
}
