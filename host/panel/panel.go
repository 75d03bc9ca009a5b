package panel

import (
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Options configure the panel.
type Options struct {
	// Token is the front door's bearer token, "" when none is configured.
	// With a token every route but the login page and the static assets
	// needs it (as a bearer token or the session cookie a login sets), and
	// any Host is accepted; without one only loopback Host names are.
	Token string
	// Editor writes the knobs' edits into the configuration file; nil
	// leaves the knobs read-only.
	Editor Editor
	// Logger receives the panel's failures; nil discards them.
	Logger hclog.Logger
	// Now is the clock of session expiry; nil is time.Now.
	Now func() time.Time
	// Keepalive is how often an idle event stream gets a comment line, so
	// proxies and browsers keep it open; 0 is 15 s.
	Keepalive time.Duration
}

//go:embed web
var webFS embed.FS

// asset is one embedded file the panel serves under /panel/static/.
type asset struct {
	body  []byte
	ctype string
}

// panel is the handler New returns.
type panel struct {
	src       Source
	editor    Editor
	log       hclog.Logger
	now       func() time.Time
	keepalive time.Duration

	token    *[sha256.Size]byte // nil: no token, loopback only
	csrf     string             // random per handler, in the page's meta tag
	index    []byte             // the page with its CSRF token
	login    string             // the login page, with %MESSAGE% to fill
	assets   map[string]asset
	sessions *sessions

	editMu sync.Mutex // one knob edit at a time: read, edit, write, reload
}

// New returns the panel: the page at / (and /panel/), its assets under
// /panel/static/, its JSON and event streams under /panel/api/.
func New(src Source, opts Options) http.Handler {
	p := &panel{
		src:       src,
		editor:    opts.Editor,
		log:       opts.Logger,
		now:       opts.Now,
		keepalive: opts.Keepalive,
		csrf:      randomHex(32),
		assets:    map[string]asset{},
	}
	if p.log == nil {
		p.log = hclog.NewNullLogger()
	}
	p.log = p.log.Named("panel")
	if p.now == nil {
		p.now = time.Now
	}
	if p.keepalive <= 0 {
		p.keepalive = 15 * time.Second
	}
	auth := "none"
	if opts.Token != "" {
		h := sha256.Sum256([]byte(opts.Token))
		p.token = &h
		auth = "token"
	}
	p.sessions = newSessions(p.now)
	fill := strings.NewReplacer("%CSRF%", p.csrf, "%AUTH%", auth)
	p.index = []byte(fill.Replace(mustRead("web/index.html")))
	p.login = fill.Replace(mustRead("web/login.html"))
	for _, name := range []string{"panel.js", "panel.css"} {
		ct := "text/javascript; charset=utf-8"
		if strings.HasSuffix(name, ".css") {
			ct = "text/css; charset=utf-8"
		}
		p.assets[name] = asset{body: []byte(mustRead("web/" + name)), ctype: ct}
	}
	return p
}

func mustRead(name string) string {
	b, err := webFS.ReadFile(name)
	if err != nil {
		panic("panel: embedded " + name + ": " + err.Error()) // a build without its files
	}
	return string(b)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// ServeHTTP checks, in order, the Host, the origin and CSRF token of a
// state change, and the token, then routes.
func (p *panel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w.Header())
	if !p.hostAllowed(r.Host) {
		http.Error(w, "axon panel: the Host "+r.Host+" is not a loopback name: open the panel at 127.0.0.1 or localhost, or configure a token", http.StatusMisdirectedRequest)
		return
	}
	upath := r.URL.Path
	if path.Clean(upath) != upath && upath != "/panel/" {
		writeError(w, http.StatusNotFound, "no such page: "+upath)
		return
	}
	if changesState(r.Method) {
		if msg := sameOrigin(r); msg != "" {
			p.log.Warn("refused a cross-origin request", "path", upath, "why", msg)
			writeError(w, http.StatusForbidden, msg)
			return
		}
		if !p.csrfOK(r) {
			p.log.Warn("refused a request without the CSRF token", "path", upath)
			writeError(w, http.StatusForbidden, "the request lacks the panel's CSRF token (X-Axon-CSRF): reload the page")
			return
		}
	}
	if upath == "/panel/login" {
		p.serveLogin(w, r)
		return
	}
	if !p.authorized(r) && !strings.HasPrefix(upath, "/panel/static/") {
		if strings.HasPrefix(upath, "/panel/api/") {
			w.Header().Set("WWW-Authenticate", `Bearer realm="axon panel"`)
			writeError(w, http.StatusUnauthorized, "the panel needs the front door's token: log in at /panel/login or send Authorization: Bearer")
			return
		}
		p.writeLogin(w, http.StatusUnauthorized, "")
		return
	}
	p.route(w, r)
}

func (p *panel) route(w http.ResponseWriter, r *http.Request) {
	upath := r.URL.Path
	switch {
	case upath == "/" || upath == "/panel/" || upath == "/panel":
		if allow(w, r, http.MethodGet) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store") // it holds the CSRF token
			_, _ = w.Write(p.index)
		}
	case strings.HasPrefix(upath, "/panel/static/"):
		p.serveAsset(w, r, strings.TrimPrefix(upath, "/panel/static/"))
	case upath == "/panel/logout":
		if allow(w, r, http.MethodPost) {
			p.logout(w, r)
		}
	case upath == "/panel/api/roster":
		if allow(w, r, http.MethodGet) {
			writeJSON(w, http.StatusOK, p.src.Roster(r.Context()))
		}
	case upath == "/panel/api/turns":
		if allow(w, r, http.MethodGet) {
			writeJSON(w, http.StatusOK, struct {
				Turns []Turn `json:"turns"`
			}{nonNil(p.src.Turns())})
		}
	case upath == "/panel/api/faces":
		if allow(w, r, http.MethodGet) {
			writeJSON(w, http.StatusOK, struct {
				Faces []Face `json:"faces"`
			}{nonNil(p.src.Faces())})
		}
	case strings.HasPrefix(upath, "/panel/api/faces/"):
		if allow(w, r, http.MethodGet) {
			p.serveFace(w, strings.TrimPrefix(upath, "/panel/api/faces/"))
		}
	case upath == "/panel/api/events":
		if allow(w, r, http.MethodGet) {
			p.serveEvents(w, r)
		}
	case upath == "/panel/api/stats":
		if allow(w, r, http.MethodGet) {
			p.serveStats(w, r)
		}
	case upath == "/panel/api/try":
		if allow(w, r, http.MethodPost) {
			p.serveTry(w, r)
		}
	case upath == "/panel/api/config":
		if allow(w, r, http.MethodGet, http.MethodPost) {
			if r.Method == http.MethodPost {
				p.postConfig(w, r)
			} else {
				p.getConfig(w, r)
			}
		}
	case strings.HasPrefix(upath, "/panel/api/"):
		writeError(w, http.StatusNotFound, "no such panel API route: "+upath)
	default:
		http.Error(w, "axon panel: no such page", http.StatusNotFound)
	}
}

func (p *panel) serveAsset(w http.ResponseWriter, r *http.Request, name string) {
	a, ok := p.assets[name]
	if !ok {
		http.Error(w, "axon panel: no such asset", http.StatusNotFound)
		return
	}
	if !allow(w, r, http.MethodGet) {
		return
	}
	w.Header().Set("Content-Type", a.ctype)
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(a.body)
}

// writeLogin serves the login page with msg (escaped) above the form.
func (p *panel) writeLogin(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(strings.Replace(p.login, "%MESSAGE%", html.EscapeString(msg), 1)))
}

// allow reports whether r's method is one of methods (HEAD counts as
// GET), answering 405 when not.
func allow(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	for _, m := range methods {
		if r.Method == m || (m == http.MethodGet && r.Method == http.MethodHead) {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	writeError(w, http.StatusMethodNotAllowed, r.Method+" is not allowed here; use "+strings.Join(methods, " or "))
	return false
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
