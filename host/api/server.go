package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// server routes requests, checks the token once for every route (mounts
// included), applies the limits, and reports every request to the Observer.
type server struct {
	cfg     config
	backend Backend
	mux     *http.ServeMux
	auth    *tokenCheck // nil: no client authentication
	admit   *admission
	started time.Time // the "created" time of the model list
}

var _ http.Handler = (*server)(nil)

// New returns the front door: an http.Handler serving
//
//	POST /v1/chat/completions   OpenAI Chat Completions
//	POST /v1/messages           Anthropic Messages
//	POST /v1/responses          OpenAI Responses (GET, DELETE /v1/responses/{id})
//	GET  /v1/models             chains and CHAIN/PROVIDER pins
//	GET  /v1/models/{id}
//	GET  /healthz               no token required
//	GET  /metrics               when WithMetrics is given
//	PREFIX, PREFIX/...          each WithMount
//
// New does no I/O; the caller owns the listener and the http.Server.
func New(b Backend, opts ...Option) http.Handler {
	cfg := newConfig(opts)
	s := &server{cfg: cfg, backend: b, mux: http.NewServeMux(), started: cfg.now(),
		admit: newAdmission(cfg.maxInFlight, cfg.maxPerChain)}
	if cfg.token != "" {
		s.auth = newTokenCheck(cfg.token)
	}
	s.handle("POST /v1/chat/completions", s.generate(openaiDialect{}))
	s.handle("POST /v1/messages", s.generate(anthropicDialect{}))
	s.handle("POST /v1/responses", s.createResponse)
	s.handle("GET /v1/responses/{id}", s.getResponse)
	s.handle("GET /v1/responses/{id}/input_items", s.inputItems)
	s.handle("DELETE /v1/responses/{id}", s.deleteResponse)
	s.handle("GET /v1/models", s.listModels)
	s.handle("GET /v1/models/{id...}", s.getModel)
	s.handle("GET /v1/stats", s.stats)
	s.handle("GET /healthz", s.health)
	if cfg.metrics != nil {
		s.mux.Handle("GET /metrics", cfg.metrics)
	}
	for _, m := range cfg.mounts {
		s.mux.Handle(m.prefix, m.m)
		s.mux.Handle(m.prefix+"/", m.m)
	}
	s.handle("/", s.noRoute)
	return s
}

// handle registers h for pattern. The mux passes on the *recorder that
// ServeHTTP gave it, so the assertion always holds.
func (s *server) handle(pattern string, h func(*recorder, *http.Request)) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) { h(w.(*recorder), r) })
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := newRecorder(w, s.cfg.now())
	m := s.mountFor(r.URL.Path)
	refused := s.auth != nil && r.URL.Path != "/healthz" && !s.auth.allows(r)
	if m == nil || refused {
		// What the front door answers itself gets its limits; a mount
		// keeps its own.
		s.limit(rec, r)
		defer rec.extend(true)
	}
	switch {
	case refused:
		s.refuse(rec, r, m)
	default:
		s.mux.ServeHTTP(rec, r)
	}
	if s.cfg.observer != nil {
		rec.rec.Route = r.Pattern
		rec.rec.Latency = s.cfg.now().Sub(rec.start)
		if rec.rec.Status == 0 {
			rec.rec.Status = http.StatusOK
		}
		s.cfg.observer.ObserveRequest(rec.rec)
	}
}

// limit puts the front door's deadlines on a request it answers itself.
func (s *server) limit(rec *recorder, r *http.Request) {
	// A fresh write deadline for every request. The caller renews it at the
	// end, so the last bytes, which net/http writes after the handler,
	// cannot block for ever either; net/http lifts it before the connection
	// serves its next request, which may be a mount's.
	rec.stall = s.cfg.writeStall
	rec.extend(true)
	if r.ContentLength != 0 && r.Body != http.NoBody {
		// The body deadline holds for every request with a body, also one
		// refused before its body is read (a wrong token, no such route):
		// net/http reads what is left of it after the handler, and a client
		// sending it slowly must not hold the connection for ever.
		// readBody renews it and lifts it once a body is in.
		_ = rec.rc.SetReadDeadline(time.Now().Add(s.cfg.bodyTimeout))
	}
}

// mountFor is the mount that serves path, nil for the front door's own.
func (s *server) mountFor(path string) Mount {
	for _, m := range s.cfg.mounts {
		if path == m.prefix || strings.HasPrefix(path, m.prefix+"/") {
			return m.m
		}
	}
	return nil
}

// refuse answers a request without the token, in the error format of the
// route it asked for: a mount's own, Anthropic's under /v1/messages,
// OpenAI's elsewhere.
func (s *server) refuse(w *recorder, r *http.Request, m Mount) {
	const code = "invalid_api_key"
	const message = "missing or wrong axon token: send it as \"Authorization: Bearer <token>\" or \"x-api-key: <token>\""
	w.Header().Set("WWW-Authenticate", `Bearer realm="axon"`)
	if m != nil {
		w.rec.Code = code
		m.Refuse(w, http.StatusUnauthorized, code, message)
		return
	}
	writeError(w, dialectFor(r.URL.Path), &wireError{kind: kindUnauthorized, code: code, message: message})
}

// allowedMethod is the method a known path accepts, for 405 answers.
func (s *server) allowedMethod(path string) (string, bool) {
	switch path {
	case "/v1/chat/completions", "/v1/messages", "/v1/responses":
		return http.MethodPost, true
	case "/v1/models", "/healthz":
		return http.MethodGet, true
	case "/metrics":
		return http.MethodGet, s.cfg.metrics != nil
	}
	return "", false
}

func (s *server) noRoute(w *recorder, r *http.Request) {
	d := dialectFor(r.URL.Path)
	if allow, ok := s.allowedMethod(r.URL.Path); ok {
		w.Header().Set("Allow", allow)
		writeError(w, d, &wireError{kind: kindMethod, code: "method_not_allowed",
			message: fmt.Sprintf("%s %s: use %s", r.Method, r.URL.Path, allow)})
		return
	}
	writeError(w, d, &wireError{kind: kindNotFound, code: "not_found", message: fmt.Sprintf("no route %s %s", r.Method, r.URL.Path)})
}

func (s *server) health(w *recorder, _ *http.Request) {
	if s.cfg.health != nil {
		if err := s.cfg.health(); err != nil {
			b, _ := json.Marshal(map[string]string{"status": "degraded", "error": err.Error()})
			writeJSON(w, http.StatusServiceUnavailable, b)
			return
		}
	}
	writeJSON(w, http.StatusOK, []byte(`{"status":"ok"}`))
}

// decodeFunc decodes a request body for serve: the dialect that answers
// it (a Responses request's holds its call) and the call.
type decodeFunc func(ctx context.Context, body []byte) (dialect, *call, error)

// generate serves one wire format's generation endpoint.
func (s *server) generate(d dialect) func(*recorder, *http.Request) {
	decode := func(_ context.Context, body []byte) (dialect, *call, error) {
		c, err := d.decode(body)
		return d, c, err
	}
	return func(w *recorder, r *http.Request) { s.serve(w, r, d, decode) }
}

// serve answers one generation request. A request holds a slot of the
// total from before its body is read, so the bodies in memory are bounded
// too, and a slot of its chain once the model names one. It returns the
// exchange of an answer that ran, nil when the request was refused first;
// d is the error shape until decode gives the request's own.
func (s *server) serve(w *recorder, r *http.Request, d dialect, decode decodeFunc) *exchange {
	if s.cfg.shutdown.Err() != nil {
		writeError(w, d, shuttingDown(false, s.cfg.retryAfter))
		return nil
	}
	if !s.admit.enter() {
		writeError(w, d, overloaded(fmt.Sprintf("axon is serving its limit of %d requests at once", s.cfg.maxInFlight), s.cfg.retryAfter))
		return nil
	}
	defer s.admit.leave()
	body, werr := s.readBody(w, r)
	if werr != nil {
		writeError(w, d, werr)
		return nil
	}
	d, c, err := decode(r.Context(), body)
	if err != nil {
		writeError(w, d, asWireError(err))
		return nil
	}
	w.rec.Model, w.rec.Stream, w.rec.Ignored = c.model, c.stream, c.ignored
	setIf(w.Header(), "x-axon-ignored", c.ignored)
	target, ok := s.backend.Resolve(c.model)
	if !ok {
		writeError(w, d, unknownModel(c.model, s.backend.Models(r.Context())))
		return nil
	}
	ctx, cancel := context.WithCancel(withTask(r.Context(), requestTask(r, c)))
	defer cancel()
	x := newExchange(s.cfg, w, d, c, target.Chain(), r.Context(), cancel)
	if !s.admit.enterChain(x.chain) {
		writeError(w, d, overloaded(fmt.Sprintf("chain %q is serving its limit of %d requests at once", x.chain, s.cfg.maxPerChain), s.cfg.retryAfter))
		return nil
	}
	defer s.admit.leaveChain(x.chain)
	stop := context.AfterFunc(s.cfg.shutdown, x.shutdown)
	defer stop()
	delivery := Streamed
	if !c.stream {
		delivery = Whole
	}
	ans, err := target.Generate(ctx, c.req, x, x.commit, delivery)
	x.finish(ans, err)
	return x
}

// dialectFor picks the error shape for a path outside the generation
// handlers: Anthropic's under /v1/messages, OpenAI's elsewhere.
func dialectFor(path string) dialect {
	if path == "/v1/messages" || strings.HasPrefix(path, "/v1/messages/") {
		return anthropicDialect{}
	}
	return openaiDialect{}
}

// asWireError returns err as the *wireError decoders return, or a generic
// invalid-request error for anything else.
func asWireError(err error) *wireError {
	var we *wireError
	if errors.As(err, &we) {
		return we
	}
	return &wireError{kind: kindInvalid, code: "invalid_value", message: err.Error()}
}

// writeError sends e in d's shape, with its retry headers.
func writeError(w *recorder, d dialect, e *wireError) {
	status, body := d.errorBody(e)
	e.setRetryHeaders(w.Header())
	w.rec.Code = e.code
	writeJSON(w, status, body)
}

func writeJSON(w *recorder, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	// In pieces, so the stall deadline measures progress: a large answer to
	// a slow but reading client is no stall. A client that went away, or
	// stopped reading, cannot be told; the Observer sees Canceled.
	for len(body) > 0 {
		n := min(len(body), writePiece)
		if _, err := w.Write(body[:n]); err != nil {
			w.rec.Canceled, w.rec.Status = true, StatusClientClosedRequest
			return
		}
		body = body[n:]
	}
}

// writePiece is the most written to a client at once.
const writePiece = 256 << 10

// recorder is the http.ResponseWriter every handler writes to: it keeps the
// Record of the request and flushes without an allocation per event.
type recorder struct {
	http.ResponseWriter
	rc    *http.ResponseController
	start time.Time
	rec   Record

	stall      time.Duration // how long a write may block; 0: for ever
	deadline   time.Time     // the write deadline set last
	noDeadline bool          // the writer is no connection: it has no deadlines
}

func newRecorder(w http.ResponseWriter, start time.Time) *recorder {
	return &recorder{ResponseWriter: w, rc: http.NewResponseController(w), start: start}
}

// extend moves the write deadline to stall from now, when force is set or
// less than half of that is left: a client that stops reading fails the
// writes after at most stall, while one that reads is never cut, and a
// stream costs one deadline update per half stall rather than one per event.
func (w *recorder) extend(force bool) {
	if w.stall <= 0 || w.noDeadline {
		return
	}
	now := time.Now()
	if !force && w.deadline.Sub(now) > w.stall/2 {
		return
	}
	w.deadline = now.Add(w.stall)
	if w.rc.SetWriteDeadline(w.deadline) != nil {
		w.noDeadline = true
	}
}

func (w *recorder) WriteHeader(status int) {
	if w.rec.Status == 0 {
		w.rec.Status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recorder) Write(p []byte) (int, error) {
	if w.rec.Status == 0 {
		w.rec.Status = http.StatusOK
	}
	w.extend(false)
	return w.ResponseWriter.Write(p)
}

// flush sends what was written so far to the client now.
func (w *recorder) flush() error { return w.rc.Flush() }

// Flush implements http.Flusher, for a mount's event streams.
func (w *recorder) Flush() { _ = w.flush() }

// Unwrap lets http.ResponseController reach the server's writer.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

var (
	_ http.ResponseWriter = (*recorder)(nil)
	_ http.Flusher        = (*recorder)(nil)
)
