package panel

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// csp allows the panel's own files and nothing else: no inline script or
// style, no other origin, no framing.
const csp = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'"

// csrfHeader carries the page's CSRF token on every state change.
const csrfHeader = "X-Axon-CSRF"

// sessionCookie holds a login's random session id, never the token.
const sessionCookie = "axon_panel"

// Sessions last a day and at most maxSessions are kept: a login past that
// forgets the oldest.
const (
	sessionTTL  = 24 * time.Hour
	maxSessions = 64
)

func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
}

// hostAllowed is the DNS-rebinding check: a page of another site that
// renamed itself to 127.0.0.1 still sends its own name as Host. With a
// token any Host is fine, since the token guards every route.
func (p *panel) hostAllowed(host string) bool {
	if p.token != nil {
		return true
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

func changesState(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// sameOrigin says why r comes from another origin, "" when it does not:
// an Origin (when sent) must be this very scheme://host, and a
// Sec-Fetch-Site (when sent) same-origin or none (typed by the user).
func sameOrigin(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		if !strings.EqualFold(o, scheme+"://"+r.Host) {
			return "cross-origin request refused: Origin " + o + " is not this panel"
		}
	}
	switch s := r.Header.Get("Sec-Fetch-Site"); s {
	case "", "same-origin", "none":
	default:
		return "cross-origin request refused: Sec-Fetch-Site is " + s
	}
	return ""
}

// csrfOK reports whether r carries the page's CSRF token: the header,
// or the login form's csrf field (a form cannot set headers).
func (p *panel) csrfOK(r *http.Request) bool {
	got := r.Header.Get(csrfHeader)
	if got == "" && r.URL.Path == "/panel/login" {
		got = formValue(r, "csrf")
	}
	return equalSecret(got, p.csrf)
}

// formValue reads one field of a url-encoded body of at most maxBody.
func formValue(r *http.Request, name string) string {
	if r.Form == nil {
		r.Body = http.MaxBytesReader(nil, r.Body, maxBody)
		if err := r.ParseForm(); err != nil {
			return ""
		}
	}
	return r.PostFormValue(name)
}

// equalSecret compares in constant time; hashing first hides the length.
func equalSecret(got, want string) bool {
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return got != "" && subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// authorized reports whether r may see the panel: no token is configured,
// or r carries it as a bearer token, or a session cookie of a login.
func (p *panel) authorized(r *http.Request) bool {
	if p.token == nil {
		return true
	}
	if v := r.Header.Get("Authorization"); len(v) > len("bearer ") && strings.EqualFold(v[:len("bearer ")], "bearer ") {
		if p.tokenMatches(strings.TrimSpace(v[len("bearer "):])) {
			return true
		}
	}
	c, err := r.Cookie(sessionCookie)
	return err == nil && p.sessions.valid(c.Value)
}

func (p *panel) tokenMatches(got string) bool {
	h := sha256.Sum256([]byte(got))
	return subtle.ConstantTimeCompare(h[:], p.token[:]) == 1
}

// serveLogin is GET /panel/login (the form) and POST /panel/login (the
// token, as the form's token field; origin and CSRF are already checked).
func (p *panel) serveLogin(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodGet, http.MethodPost) {
		return
	}
	if p.token == nil {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if r.Method != http.MethodPost {
		p.writeLogin(w, http.StatusOK, "")
		return
	}
	if !p.tokenMatches(formValue(r, "token")) {
		p.log.Warn("panel login with a wrong token")
		p.writeLogin(w, http.StatusUnauthorized, "That is not the front door's token.")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name:     sessionCookie,
		Value:    p.sessions.start(),
		Path:     "/",
		MaxAge:   int(sessionTTL / time.Second),
		HttpOnly: true,
		Secure:   r.TLS != nil,
		SameSite: http.SameSiteStrictMode,
	})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (p *panel) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		p.sessions.end(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	w.WriteHeader(http.StatusNoContent)
}

// sessions are the logins of this process, in memory: a restart logs
// everyone out.
type sessions struct {
	now func() time.Time
	mu  sync.Mutex
	ids map[string]time.Time // id → expiry
}

func newSessions(now func() time.Time) *sessions {
	return &sessions{now: now, ids: map[string]time.Time{}}
}

func (s *sessions) start() string {
	id := randomHex(32)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for k, exp := range s.ids {
		if !now.Before(exp) {
			delete(s.ids, k)
		}
	}
	for len(s.ids) >= maxSessions {
		var oldest string
		for k, exp := range s.ids {
			if oldest == "" || exp.Before(s.ids[oldest]) {
				oldest = k
			}
		}
		delete(s.ids, oldest)
	}
	s.ids[id] = now.Add(sessionTTL)
	return id
}

func (s *sessions) valid(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.ids[id]
	return ok && s.now().Before(exp)
}

func (s *sessions) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.ids, id)
}
