package egress

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/hcl/credref"
	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/sdk"
)

const secret = "sk-test-5f2c9a7e1d"

func env(k string) (string, bool) {
	if k == "KEY" {
		return secret, true
	}
	return "", false
}

// seen records what an upstream received.
type seen struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (s *seen) handler(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs = append(s.reqs, r.Clone(context.Background()))
		s.mu.Unlock()
		next(w, r)
	})
}

func (s *seen) last(t *testing.T) *http.Request {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		t.Fatal("upstream received nothing")
	}
	return s.reqs[len(s.reqs)-1]
}

func ok(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }

func newService(t *testing.T, logs io.Writer, auth sdk.Auth, allow ...string) *Service {
	t.Helper()
	al, err := NewAllowList(allow...)
	if err != nil {
		t.Fatal(err)
	}
	if logs == nil {
		logs = io.Discard
	}
	inject, err := NewAllowList(allow[0]) // the provider's own origin: the first entry
	if err != nil {
		t.Fatal(err)
	}
	s := New(Grant{Plugin: "p", Allow: al, Inject: inject, Auth: auth, Credential: credref.MustParse("env:KEY")},
		hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Trace}), WithEnv(env))
	t.Cleanup(s.Close)
	return s
}

func get(t *testing.T, s *Service, url string, h http.Header) (*sdk.EgressResponse, error) {
	t.Helper()
	resp, err := s.Do(context.Background(), &sdk.EgressRequest{Method: "GET", URL: url, Header: h})
	if err == nil {
		t.Cleanup(func() { resp.Body.Close() })
	}
	return resp, err
}

func TestCredentialInjectionReplacesPluginCredentials(t *testing.T) {
	t.Parallel()
	smuggled := http.Header{
		"Authorization":  {"Bearer evil"},
		"X-Api-Key":      {"evil"},
		"Api-Key":        {"evil"},
		"X-Goog-Api-Key": {"evil"},
		"X-Custom":       {"kept"},
	}
	for _, c := range []struct {
		name  string
		auth  sdk.Auth
		check func(t *testing.T, r *http.Request)
	}{
		{"bearer", sdk.Auth{Scheme: sdk.AuthBearer}, func(t *testing.T, r *http.Request) {
			if got := r.Header.Get("Authorization"); got != "Bearer "+secret {
				t.Errorf("Authorization = %q", got)
			}
		}},
		{"header", sdk.Auth{Scheme: sdk.AuthHeader, Name: "x-api-key"}, func(t *testing.T, r *http.Request) {
			if got := r.Header.Values("X-Api-Key"); len(got) != 1 || got[0] != secret {
				t.Errorf("x-api-key = %q", got)
			}
			if r.Header.Get("Authorization") != "" {
				t.Error("plugin's Authorization header reached the upstream")
			}
		}},
		{"query", sdk.Auth{Scheme: sdk.AuthQuery, Name: "key"}, func(t *testing.T, r *http.Request) {
			if got := r.URL.Query()["key"]; len(got) != 1 || got[0] != secret {
				t.Errorf("key = %q", got)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var up seen
			srv := httptest.NewServer(up.handler(ok))
			defer srv.Close()
			s := newService(t, nil, c.auth, srv.URL)
			if _, err := get(t, s, srv.URL+"/v1/x?key=evil&KEY=evil&Api_Key=evil&keep=1", smuggled.Clone()); err != nil {
				t.Fatal(err)
			}
			r := up.last(t)
			c.check(t, r)
			for k, vs := range r.Header {
				for _, v := range vs {
					if strings.Contains(v, "evil") {
						t.Errorf("smuggled header %s: %s reached the upstream", k, v)
					}
				}
			}
			if strings.Contains(r.URL.RawQuery, "evil") || r.URL.Query().Get("keep") != "1" {
				t.Errorf("query = %q", r.URL.RawQuery)
			}
			if r.Header.Get("X-Custom") != "kept" {
				t.Error("an ordinary header was dropped")
			}
		})
	}
}

func TestDeniesHostsOffTheAllowList(t *testing.T) {
	t.Parallel()
	var up seen
	srv := httptest.NewServer(up.handler(ok))
	defer srv.Close()
	s := newService(t, nil, sdk.Auth{Scheme: sdk.AuthBearer}, "https://api.example.com")
	for _, u := range []string{srv.URL + "/", "http://api.example.com/", "https://api.example.com:444/", "https://user:pw@api.example.com/", "/relative"} {
		_, err := get(t, s, u, nil)
		if !errors.Is(err, sdk.ErrEgressDenied) {
			t.Errorf("%s: err = %v, want egress denied", u, err)
		}
	}
	if len(up.reqs) != 0 {
		t.Errorf("upstream received %d requests", len(up.reqs))
	}
}

func TestNeverFollowsRedirects(t *testing.T) {
	t.Parallel()
	var other seen
	off := httptest.NewServer(other.handler(ok))
	defer off.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, off.URL+"/steal", http.StatusFound)
	}))
	defer srv.Close()
	s := newService(t, nil, sdk.Auth{Scheme: sdk.AuthHeader, Name: "x-api-key"}, srv.URL)
	resp, err := get(t, s, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusFound {
		t.Errorf("status %d, want the 302 itself", resp.StatusCode)
	}
	if len(other.reqs) != 0 {
		t.Error("the redirect was followed off the allow list")
	}
}

func TestResponseSizeLimit(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("x"), 1000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/declared" {
			w.Header().Set("Content-Length", "1000")
		} else {
			w.(http.Flusher).Flush() // chunked: no length known up front
		}
		w.Write(big)
	}))
	defer srv.Close()
	al, _ := NewAllowList(srv.URL)
	s := New(Grant{Allow: al, MaxResponseBytes: 100}, hclog.NewNullLogger())
	if _, err := get(t, s, srv.URL+"/declared", nil); !errors.Is(err, sdk.ErrEgressLimit) {
		t.Errorf("declared length: err = %v", err)
	}
	resp, err := get(t, s, srv.URL+"/streamed", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	if !errors.Is(err, sdk.ErrEgressLimit) || len(got) != 100 {
		t.Errorf("streamed: read %d bytes, err = %v", len(got), err)
	}
}

func TestResponseTimeoutIsTransient(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	al, _ := NewAllowList(srv.URL)
	s := New(Grant{Allow: al, ResponseTimeout: 50 * time.Millisecond}, hclog.NewNullLogger())
	_, err := get(t, s, srv.URL, nil)
	if !errors.Is(err, sdk.ErrTimeout) || !errors.Is(err, sdk.ErrTransient) {
		t.Fatalf("err = %v, want a transient timeout", err)
	}
}

func TestSecretNeverInErrorsOrLogs(t *testing.T) {
	t.Parallel()
	// A closed port: net/http's error would print the URL with ?key=<secret>.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	var logs logbuf.Buffer // safe to read while a tunnel or request still logs
	s := newService(t, &logs, sdk.Auth{Scheme: sdk.AuthQuery, Name: "key"}, "http://"+addr)
	_, err := get(t, s, "http://"+addr+"/v1?x=1", nil)
	if err == nil {
		t.Fatal("dial to a closed port succeeded")
	}
	if !errors.Is(err, sdk.ErrTransient) {
		t.Errorf("err = %v, want transient", err)
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(logs.String(), secret) {
		t.Fatalf("secret leaked:\nerr: %v\nlogs: %s", err, logs.String())
	}
	if !strings.Contains(logs.String(), "egress") {
		t.Error("the call was not logged")
	}
}

func TestMissingCredentialIsAuthRequired(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(ok))
	defer srv.Close()
	al, _ := NewAllowList(srv.URL)
	s := New(Grant{Allow: al, Auth: sdk.Auth{Scheme: sdk.AuthBearer}, Credential: credref.MustParse("env:NOPE")},
		hclog.NewNullLogger(), WithEnv(env))
	_, err := get(t, s, srv.URL, nil)
	if !errors.Is(err, sdk.ErrAuthRequired) || !strings.Contains(err.Error(), "env:NOPE") {
		t.Fatalf("err = %v", err)
	}
}

// TestStreamsEventByEvent runs the upstream in lockstep with the reader: the
// upstream sends the next SSE event only after the reader has seen the
// previous one, so any buffering in the egress deadlocks and fails the test.
func TestStreamsEventByEvent(t *testing.T) {
	t.Parallel()
	seenEvent := make(chan struct{}, 5)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 5 {
			io.WriteString(w, "data: "+string(rune('a'+i))+"\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-seenEvent:
			case <-r.Context().Done():
				return
			case <-time.After(5 * time.Second):
				return // the reader never saw the event: it was buffered
			}
		}
	}))
	defer srv.Close()
	s := newService(t, nil, sdk.Auth{}, srv.URL)
	resp, err := get(t, s, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	var got []string
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			got = append(got, line)
			seenEvent <- struct{}{}
		}
	}
	if len(got) != 5 {
		t.Fatalf("got %d events (%q), want 5 delivered one by one", len(got), got)
	}
}

// reflect answers with everything it received: every header and the query
// in the body, the query again in a Location header.
func reflect(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Location", "https://elsewhere.example/?"+r.URL.RawQuery)
	w.Header().Set("X-Echo-Auth", r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
	w.WriteHeader(http.StatusFound)
	fmt.Fprintf(w, "query %s\n", r.URL.RawQuery)
	r.Header.Write(w)
	fmt.Fprintf(w, `{"error":{"code":%q,"message":"bad key %s"}}`, r.Header.Get("Authorization"), url.QueryEscape(secret))
}

// TestEchoedCredentialNeverReachesThePlugin: an upstream that reflects the
// request hands back nothing of the injected key, in any placement.
func TestEchoedCredentialNeverReachesThePlugin(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(reflect))
	defer srv.Close()
	for _, auth := range []sdk.Auth{{Scheme: sdk.AuthBearer}, {Scheme: sdk.AuthHeader, Name: "x-api-key"}, {Scheme: sdk.AuthQuery, Name: "key"}} {
		s := newService(t, nil, auth, srv.URL)
		resp, err := get(t, s, srv.URL+"/echo", nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		var hdr strings.Builder
		resp.Header.Write(&hdr)
		seen := string(body) + hdr.String()
		if strings.Contains(seen, secret) || strings.Contains(seen, url.QueryEscape(secret)) {
			t.Errorf("%s: the plugin saw the key:\n%s", auth.Scheme, seen)
		}
		if !strings.Contains(seen, "[redacted]") {
			t.Errorf("%s: nothing was masked, so the upstream echoed nothing: the test proves nothing\n%s", auth.Scheme, seen)
		}
	}
}

// TestRotatedCredentialIsMasked: the credential is resolved for every
// request, and what an upstream echoes is masked with the key the request
// carried, not with the one the egress last saw.
func TestRotatedCredentialIsMasked(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(reflect))
	defer srv.Close()
	var mu sync.Mutex
	key := "sk-first-0123456789abcdef"
	al, _ := NewAllowList(srv.URL)
	s := New(Grant{Plugin: "p", Allow: al, Inject: al, Auth: sdk.Auth{Scheme: sdk.AuthBearer}, Credential: credref.MustParse("env:KEY")},
		hclog.NewNullLogger(), WithEnv(func(string) (string, bool) {
			mu.Lock()
			defer mu.Unlock()
			return key, true
		}))
	defer s.Close()
	for _, k := range []string{key, "sk-second-fedcba9876543210", key} {
		mu.Lock()
		key = k
		mu.Unlock()
		resp, err := get(t, s, srv.URL+"/echo", nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if strings.Contains(string(body), k) || !strings.Contains(string(body), "[redacted]") {
			t.Errorf("key %s: the plugin saw\n%s", k, body)
		}
		if got := s.Redactor().String("x " + k); got != "x [redacted]" {
			t.Errorf("key %s: Redactor masks %q", k, got)
		}
	}
}

// TestCredentialOnlyOnTheProvidersOrigin: an extra allowed origin is
// reachable, but the key is never sent there.
func TestCredentialOnlyOnTheProvidersOrigin(t *testing.T) {
	t.Parallel()
	var own, extra seen
	ownSrv := httptest.NewServer(own.handler(ok))
	defer ownSrv.Close()
	extraSrv := httptest.NewServer(extra.handler(ok))
	defer extraSrv.Close()
	s := newService(t, nil, sdk.Auth{Scheme: sdk.AuthBearer}, ownSrv.URL, extraSrv.URL)
	if _, err := get(t, s, extraSrv.URL+"/cdn", nil); err != nil {
		t.Fatal(err)
	}
	if got := extra.last(t).Header.Get("Authorization"); got != "" {
		t.Errorf("the extra origin got Authorization %q", got)
	}
	if _, err := get(t, s, ownSrv.URL+"/v1", nil); err != nil {
		t.Fatal(err)
	}
	if got := own.last(t).Header.Get("Authorization"); got != "Bearer "+secret {
		t.Errorf("the provider's own origin got %q", got)
	}
}

// TestBodyLengthReachesTheUpstream: a body in memory, or one whose length
// the plugin declares, goes upstream with a Content-Length; only a body of
// unknown length is chunked.
func TestBodyLengthReachesTheUpstream(t *testing.T) {
	t.Parallel()
	type seenBody struct {
		length  int64
		chunked bool
		body    string
	}
	got := make(chan seenBody, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seenBody{r.ContentLength, len(r.TransferEncoding) > 0, string(b)}
	}))
	defer srv.Close()
	s := newService(t, nil, sdk.Auth{Scheme: sdk.AuthBearer}, srv.URL)
	type streamed struct{ io.Reader }
	for _, c := range []struct {
		name string
		h    http.Header
		body io.Reader
		want seenBody
	}{
		{"in memory", nil, bytes.NewReader([]byte("hello")), seenBody{5, false, "hello"}},
		{"declared", http.Header{"Content-Length": {"5"}}, streamed{strings.NewReader("hello")}, seenBody{5, false, "hello"}},
		{"unknown", nil, streamed{strings.NewReader("hello")}, seenBody{-1, true, "hello"}},
	} {
		resp, err := s.Do(t.Context(), &sdk.EgressRequest{Method: "POST", URL: srv.URL + "/v1", Header: c.h, Body: c.body})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		resp.Body.Close()
		if g := <-got; g != c.want {
			t.Errorf("%s: the upstream saw %+v, want %+v", c.name, g, c.want)
		}
	}
}
