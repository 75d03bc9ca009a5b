package panel

import (
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestCrossOriginRefused(t *testing.T) {
	t.Parallel()
	tryBody := `{"chain":"default","prompt":"hi"}`
	cfgBody := `{"edits":[{"block":"billing","field":"enabled","value":false}]}`
	tests := []struct {
		name   string
		header map[string]string // on top of Content-Type: application/json
		csrf   string            // "page": the page's token
	}{
		{name: "no CSRF token", header: map[string]string{"Origin": "http://" + loopback}},
		{name: "wrong CSRF token", csrf: "00ff", header: map[string]string{"Origin": "http://" + loopback}},
		{name: "other Origin", csrf: "page", header: map[string]string{"Origin": "http://evil.example"}},
		{name: "other port", csrf: "page", header: map[string]string{"Origin": "http://127.0.0.1:8080"}},
		{name: "Origin null", csrf: "page", header: map[string]string{"Origin": "null"}},
		{name: "https Origin on http", csrf: "page", header: map[string]string{"Origin": "https://" + loopback}},
		{name: "Sec-Fetch-Site cross-site", csrf: "page", header: map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{name: "Sec-Fetch-Site same-site", csrf: "page", header: map[string]string{"Sec-Fetch-Site": "same-site"}},
	}
	for _, tt := range tests {
		for _, target := range []string{"/panel/api/try", "/panel/api/config"} {
			t.Run(tt.name+" "+target, func(t *testing.T) {
				t.Parallel()
				f := newFake()
				ed := &fakeEditor{}
				h := New(f, Options{Editor: ed})
				header := map[string]string{"Content-Type": "application/json"}
				for k, v := range tt.header {
					header[k] = v
				}
				switch tt.csrf {
				case "page":
					header["X-Axon-CSRF"] = csrfOf(t, h, nil)
				case "":
				default:
					header["X-Axon-CSRF"] = tt.csrf
				}
				body := tryBody
				if strings.HasSuffix(target, "config") {
					body = cfgBody
				}
				w := do(t, h, req{method: http.MethodPost, target: target, body: body, header: header})
				if w.Code != http.StatusForbidden || errMessage(t, w) == "" {
					t.Errorf("status %d, want 403 with a JSON error: %s", w.Code, w.Body)
				}
				if tries, reloads := f.effects(); len(tries) != 0 || reloads != 0 || ed.callCount() != 0 {
					t.Errorf("refused request had effects: tries %v, reloads %d, edits %d", tries, reloads, ed.callCount())
				}
			})
		}
	}
	// The same request from the page itself goes through; typed in (none)
	// and no Origin at all count as the page's own.
	f := newFake()
	h := New(f, Options{})
	csrf := csrfOf(t, h, nil)
	for _, header := range []map[string]string{
		{"Origin": "http://" + loopback, "Sec-Fetch-Site": "same-origin"},
		{"Sec-Fetch-Site": "none"},
		{},
	} {
		header["Content-Type"], header["X-Axon-CSRF"] = "application/json", csrf
		if w := do(t, h, req{method: http.MethodPost, target: "/panel/api/try", body: tryBody, header: header}); w.Code != http.StatusOK {
			t.Errorf("%v: status %d, want 200: %s", header, w.Code, w.Body)
		}
	}
}

func TestCSRFPerHandler(t *testing.T) {
	t.Parallel()
	a, b := New(newFake(), Options{}), New(newFake(), Options{})
	if csrfOf(t, a, nil) == csrfOf(t, b, nil) {
		t.Error("two panels share a CSRF token")
	}
}

func TestHostRebinding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host  string
		token string
		want  int
	}{
		{"127.0.0.1:7070", "", 200},
		{"127.1.2.3:7070", "", 200},
		{"localhost:7070", "", 200},
		{"LOCALHOST", "", 200},
		{"[::1]:7070", "", 200},
		{"evil.example:7070", "", http.StatusMisdirectedRequest},
		{"evil.example", "", http.StatusMisdirectedRequest},
		{"localhost.evil.example", "", http.StatusMisdirectedRequest},
		{"192.168.1.10:7070", "", http.StatusMisdirectedRequest},
		{"0.0.0.0:7070", "", http.StatusMisdirectedRequest},
		{"", "", http.StatusMisdirectedRequest},
		// With a token any name is fine: the token guards it.
		{"axon.lan:7070", "s3cret", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.host+" "+tt.token, func(t *testing.T) {
			t.Parallel()
			f := newFake()
			h := New(f, Options{Token: tt.token})
			for _, target := range []string{"/", "/panel/api/roster"} {
				r := do(t, h, req{target: target, host: tt.host})
				if tt.host == "" {
					r = do(t, h, req{target: target, host: " "})
				}
				if r.Code != tt.want {
					t.Errorf("%s: status %d, want %d", target, r.Code, tt.want)
				}
				if tt.want == http.StatusMisdirectedRequest && strings.Contains(r.Body.String(), "credential") {
					t.Errorf("%s: refused answer shows data: %s", target, r.Body)
				}
			}
			if tries, _ := f.effects(); len(tries) != 0 {
				t.Errorf("tries %v", tries)
			}
		})
	}
}

func TestTokenLogin(t *testing.T) {
	t.Parallel()
	const token = "s3cret-token"
	f := newFake()
	h := New(f, Options{Token: token})

	// Unauthenticated: the page is the login form, the API a 401.
	w := do(t, h, req{target: "/"})
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), `id="login-form"`) || strings.Contains(w.Body.String(), "tab-live") {
		t.Fatalf("GET / without login: %d %s", w.Code, w.Body)
	}
	w = do(t, h, req{target: "/panel/api/roster"})
	if w.Code != http.StatusUnauthorized || errMessage(t, w) == "" || strings.Contains(w.Body.String(), "ANTHROPIC") {
		t.Fatalf("API without login: %d %s", w.Code, w.Body)
	}
	if w := do(t, h, req{target: "/panel/static/panel.css"}); w.Code != http.StatusOK {
		t.Errorf("the login page's stylesheet: %d", w.Code)
	}
	w = do(t, h, req{target: "/panel/login"})
	if w.Code != http.StatusOK {
		t.Fatalf("GET /panel/login: %d", w.Code)
	}
	csrf := regexpCSRF(t, w.Body.String())

	login := func(tok, csrf string, header map[string]string) *httptestResponse {
		form := url.Values{"token": {tok}, "csrf": {csrf}}.Encode()
		hd := map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": "http://" + loopback}
		for k, v := range header {
			hd[k] = v
		}
		return do(t, h, req{method: http.MethodPost, target: "/panel/login", body: form, header: hd})
	}
	if w := login("wrong", csrf, nil); w.Code != http.StatusUnauthorized || len(w.Result().Cookies()) != 0 {
		t.Errorf("wrong token: %d, cookies %v", w.Code, w.Result().Cookies())
	}
	if w := login(token, "", nil); w.Code != http.StatusForbidden || len(w.Result().Cookies()) != 0 {
		t.Errorf("login without CSRF: %d", w.Code)
	}
	if w := login(token, csrf, map[string]string{"Origin": "http://evil.example"}); w.Code != http.StatusForbidden || len(w.Result().Cookies()) != 0 {
		t.Errorf("login from another origin: %d", w.Code)
	}

	w = login(token, csrf, nil)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/" {
		t.Fatalf("login: %d %v", w.Code, w.Header())
	}
	cookies := w.Result().Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies %v", cookies)
	}
	c := cookies[0]
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Value == "" || strings.Contains(c.Value, token) {
		t.Errorf("session cookie %+v", c)
	}
	withCookie := map[string]string{"Cookie": c.Name + "=" + c.Value}
	if w := do(t, h, req{target: "/panel/api/roster", header: withCookie}); w.Code != http.StatusOK {
		t.Errorf("API with the cookie: %d", w.Code)
	}
	if w := do(t, h, req{target: "/", header: withCookie}); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `content="token"`) {
		t.Errorf("page with the cookie: %d", w.Code)
	}
	if w := do(t, h, req{target: "/panel/api/roster", header: map[string]string{"Cookie": c.Name + "=forged"}}); w.Code != http.StatusUnauthorized {
		t.Errorf("forged cookie: %d", w.Code)
	}
	for _, bearer := range []struct {
		header string
		want   int
	}{{"Bearer " + token, 200}, {"bearer " + token, 200}, {"Bearer wrong", 401}, {token, 401}} {
		if w := do(t, h, req{target: "/panel/api/turns", header: map[string]string{"Authorization": bearer.header}}); w.Code != bearer.want {
			t.Errorf("Authorization %q: %d, want %d", bearer.header, w.Code, bearer.want)
		}
	}

	// A state change still needs the page's CSRF token with the cookie.
	pageCSRF := csrfOf(t, h, withCookie)
	tryHeader := map[string]string{"Cookie": withCookie["Cookie"], "Content-Type": "application/json"}
	if w := do(t, h, req{method: http.MethodPost, target: "/panel/api/try", body: `{"chain":"default","prompt":"hi"}`, header: tryHeader}); w.Code != http.StatusForbidden {
		t.Errorf("try with the cookie but no CSRF: %d", w.Code)
	}
	tryHeader["X-Axon-CSRF"] = pageCSRF
	if w := do(t, h, req{method: http.MethodPost, target: "/panel/api/try", body: `{"chain":"default","prompt":"hi"}`, header: tryHeader}); w.Code != http.StatusOK {
		t.Errorf("try with the cookie and CSRF: %d %s", w.Code, w.Body)
	}

	// Logging out ends the session.
	out := map[string]string{"Cookie": withCookie["Cookie"], "X-Axon-CSRF": pageCSRF}
	if w := do(t, h, req{method: http.MethodPost, target: "/panel/logout", header: out}); w.Code != http.StatusNoContent {
		t.Errorf("logout: %d", w.Code)
	}
	if w := do(t, h, req{target: "/panel/api/roster", header: withCookie}); w.Code != http.StatusUnauthorized {
		t.Errorf("API after logout: %d", w.Code)
	}
}

func TestNoTokenLoginRedirects(t *testing.T) {
	t.Parallel()
	w := do(t, New(newFake(), Options{}), req{target: "/panel/login"})
	if w.Code != http.StatusSeeOther {
		t.Errorf("login without a token configured: %d", w.Code)
	}
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	h := New(newFake(), Options{Token: "t"})
	open := New(newFake(), Options{})
	for _, w := range []*httptestResponse{
		do(t, open, req{target: "/"}),
		do(t, open, req{target: "/panel/api/roster"}),
		do(t, open, req{target: "/panel/api/nope"}),
		do(t, open, req{target: "/", host: "evil.example"}),
		do(t, open, req{method: http.MethodPost, target: "/panel/api/try"}),
		do(t, h, req{target: "/"}),
		do(t, h, req{target: "/panel/api/roster"}),
	} {
		if got := w.Header().Get("Content-Security-Policy"); got != csp {
			t.Errorf("CSP %q", got)
		}
		if w.Header().Get("X-Content-Type-Options") != "nosniff" || w.Header().Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("headers %v", w.Header())
		}
	}
}

// TestEmbeddedOffline: the page loads nothing from the network, and runs
// no inline script the CSP would block.
func TestEmbeddedOffline(t *testing.T) {
	t.Parallel()
	total := 0
	err := fs.WalkDir(webFS, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := webFS.ReadFile(name)
		if err != nil {
			return err
		}
		total += len(b)
		s := strings.ToLower(string(b))
		for _, bad := range []string{"http://", "https://", "//cdn", "innerhtml", "outerhtml", "insertadjacenthtml", "document.write", "eval(", "style="} {
			if strings.Contains(s, bad) {
				t.Errorf("%s contains %q", name, bad)
			}
		}
		if strings.HasSuffix(name, ".html") && strings.Contains(s, "<script>") {
			t.Errorf("%s has an inline script", name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("embedded page weight: %d bytes", total)
	if total > 60<<10 {
		t.Errorf("embedded files are %d bytes, over 60 kB", total)
	}
}

// TestSelectors: the ids and attributes the browser tests rely on.
func TestSelectors(t *testing.T) {
	t.Parallel()
	page := mustRead("web/index.html") + mustRead("web/panel.js")
	for _, s := range []string{`id="tab-live"`, `id="tab-roster"`, `id="tab-stats"`, `id="tab-try"`, `id="tab-knobs"`,
		`'data-turn-id'`, `class: 'turn'`, `turn-provider`, `turn-trail`, `class: 'face', 'data-display'`, `'data-provider': p.name`,
		`'data-knob'`, `class: 'diag', 'data-for'`, `id="knobs-save"`, `id="knobs-result"`,
		`id="try-chain"`, `id="try-prompt"`, `id="try-send"`, `id="try-answer"`, `id="try-trail"`} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %s", s)
		}
	}
}
