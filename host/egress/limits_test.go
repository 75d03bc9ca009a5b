package egress

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/sdk"
)

// hangGuard bounds a call that must end on its own: it fails the test
// instead of hanging it, and plays no part in the outcome.
const hangGuard = 10 * time.Second

func guarded[T any](t *testing.T, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("%s did not end within %s", what, hangGuard)
		panic("unreachable")
	}
}

type result struct {
	resp *sdk.EgressResponse
	err  error
}

func do(t *testing.T, s *Service, req *sdk.EgressRequest) (*sdk.EgressResponse, error) {
	t.Helper()
	r := guarded(t, req.Method+" "+req.URL, func() result {
		resp, err := s.Do(context.Background(), req)
		return result{resp, err}
	})
	if r.err == nil {
		t.Cleanup(func() { r.resp.Body.Close() })
	}
	return r.resp, r.err
}

func grantFor(t *testing.T, allow ...string) Grant {
	t.Helper()
	al, err := NewAllowList(allow...)
	if err != nil {
		t.Fatal(err)
	}
	return Grant{Plugin: "p", Allow: al}
}

// bodies records every request body an upstream read to its end.
type bodies struct {
	mu  sync.Mutex
	got [][]byte
}

func (b *bodies) handler(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return // a truncated request: never counted as received
	}
	b.mu.Lock()
	b.got = append(b.got, data)
	b.mu.Unlock()
	io.WriteString(w, "ok")
}

func (b *bodies) lens() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	var n []int
	for _, g := range b.got {
		n = append(n, len(g))
	}
	return n
}

func TestRequestBodyLimit(t *testing.T) {
	t.Parallel()
	var up bodies
	srv := httptest.NewServer(http.HandlerFunc(up.handler))
	defer srv.Close()
	g := grantFor(t, srv.URL)
	g.MaxRequestBytes = 100
	s := New(g, hclog.NewNullLogger())
	defer s.Close()
	// streamed hides the reader's type: the body is one the plugin streams.
	type streamed struct{ io.Reader }
	post := func(n int, h http.Header, inMemory bool) error {
		var body io.Reader = bytes.NewReader(bytes.Repeat([]byte("x"), n))
		if !inMemory {
			body = streamed{body}
		}
		_, err := do(t, s, &sdk.EgressRequest{Method: "POST", URL: srv.URL, Header: h, Body: body})
		return err
	}

	for _, inMemory := range []bool{false, true} {
		if err := post(100, nil, inMemory); err != nil {
			t.Fatalf("a body of exactly the limit (in memory %v): %v", inMemory, err)
		}
	}
	for _, c := range []struct {
		name     string
		h        http.Header
		inMemory bool
	}{
		{"streamed", nil, false},
		{"declared", http.Header{"Content-Length": {"1000"}}, false},
		{"in memory", nil, true},
	} {
		err := post(1000, c.h, c.inMemory)
		if !errors.Is(err, sdk.ErrEgressLimit) || !errors.Is(err, sdk.ErrPermanent) || !strings.Contains(err.Error(), "max_request_bytes") {
			t.Errorf("%s: err = %v, want a permanent egress limit naming max_request_bytes", c.name, err)
		}
	}
	if got := up.lens(); len(got) != 2 || got[0] != 100 || got[1] != 100 {
		t.Errorf("upstream received complete bodies of %v bytes, want only the two of 100", got)
	}
}

func TestRequestBodyIdleDeadline(t *testing.T) {
	t.Parallel()
	var up bodies
	srv := httptest.NewServer(http.HandlerFunc(up.handler))
	defer srv.Close()
	g := grantFor(t, srv.URL)
	g.RequestIdleTimeout = 50 * time.Millisecond
	s := New(g, hclog.NewNullLogger())
	defer s.Close()

	pr, pw := io.Pipe()
	// Should the deadline fail, closing lets the upstream's handler end.
	defer pw.Close()
	go pw.Write([]byte(`{"partial":`)) // and never another byte
	_, err := do(t, s, &sdk.EgressRequest{Method: "POST", URL: srv.URL, Body: pr})
	if !errors.Is(err, sdk.ErrTimeout) || !errors.Is(err, sdk.ErrTransient) || !strings.Contains(err.Error(), "request_idle_timeout") {
		t.Fatalf("err = %v, want a transient timeout naming request_idle_timeout", err)
	}
	// The egress let go of the plugin's body: a late write is refused, not parked.
	if werr := guarded(t, "a late write to the stalled body", func() error { _, err := pw.Write([]byte("late")); return err }); !errors.Is(werr, io.ErrClosedPipe) {
		t.Errorf("late write: %v, want io.ErrClosedPipe", werr)
	}
	if got := up.lens(); len(got) != 0 {
		t.Errorf("upstream received complete bodies %v", got)
	}
}

func TestTotalDeadline(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "data: first\n\n")
		w.(http.Flusher).Flush()
		select { // a stream that never ends on its own
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	g := grantFor(t, srv.URL)
	g.TotalTimeout = 100 * time.Millisecond
	s := New(g, hclog.NewNullLogger())
	defer s.Close()

	resp, err := do(t, s, &sdk.EgressRequest{Method: "GET", URL: srv.URL})
	if err == nil { // the headers came in time; the deadline ends the stream
		err = guarded(t, "reading the endless stream", func() error { _, err := io.ReadAll(resp.Body); return err })
	}
	if !errors.Is(err, sdk.ErrTimeout) || !errors.Is(err, sdk.ErrTransient) || !strings.Contains(err.Error(), "total_timeout") {
		t.Fatalf("err = %v, want a transient timeout naming total_timeout", err)
	}
}

func TestConcurrencyCap(t *testing.T) {
	t.Parallel()
	var arrived sync.WaitGroup
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		arrived.Done()
		select { // the response body stays open until the test releases it
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	var logs logbuf.Buffer // safe to read while a tunnel or request still logs
	g := grantFor(t, srv.URL)
	g.MaxConcurrent = 2
	s := New(g, hclog.New(&hclog.LoggerOptions{Output: &logs}))
	defer s.Close()
	get := func() (*sdk.EgressResponse, error) {
		return do(t, s, &sdk.EgressRequest{Method: "GET", URL: srv.URL})
	}

	var open []*sdk.EgressResponse
	for range 2 {
		arrived.Add(1)
		resp, err := get()
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, resp)
	}
	_, err := get()
	if !errors.Is(err, sdk.ErrEgressLimit) || !errors.Is(err, sdk.ErrTransient) || !strings.Contains(err.Error(), "max_concurrent") {
		t.Fatalf("a third request while two stream: err = %v, want a transient egress limit naming max_concurrent", err)
	}
	if !strings.Contains(logs.String(), "max_concurrent") {
		t.Errorf("the refusal was not logged:\n%s", logs.String())
	}
	open[0].Body.Close() // ends one stream: its slot is free again
	arrived.Add(1)
	if _, err := get(); err != nil {
		t.Fatalf("after a stream ended: %v", err)
	}
	arrived.Wait()
}

// clock is a settable time source.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestDenyLogIsRateLimited(t *testing.T) {
	t.Parallel()
	var logs logbuf.Buffer // safe to read while a tunnel or request still logs
	clk := &clock{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	g := grantFor(t, "https://api.example.com")
	s := New(g, hclog.New(&hclog.LoggerOptions{Output: &logs}), WithClock(clk.Now))
	deny := func(n int, url string) {
		t.Helper()
		for range n {
			if _, err := s.Do(context.Background(), &sdk.EgressRequest{Method: "GET", URL: url}); !errors.Is(err, sdk.ErrEgressDenied) {
				t.Fatalf("%s: err = %v, want egress denied every time", url, err)
			}
		}
	}
	lines := func() []string {
		var out []string
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, "egress denied") {
				out = append(out, l)
			}
		}
		return out
	}

	deny(5, "https://evil.example/a")
	deny(1, "https://other.example/")
	clk.Add(denyLogEvery - time.Millisecond)
	deny(1, "https://evil.example/b")
	if got := lines(); len(got) != 2 || !strings.Contains(got[0], "evil.example") || !strings.Contains(got[1], "other.example") {
		t.Fatalf("within one interval, want one line per denial kind:\n%s", strings.Join(got, "\n"))
	}
	clk.Add(time.Millisecond)
	deny(3, "https://evil.example/c")
	got := lines()
	if len(got) != 3 || !strings.Contains(got[2], "evil.example") || !strings.Contains(got[2], "suppressed=5") {
		t.Fatalf("after the interval, want one more line counting 5 suppressed:\n%s", strings.Join(got, "\n"))
	}
	s.Close()
	got = lines()
	if len(got) != 4 || !strings.Contains(got[3], "suppressed=2") {
		t.Fatalf("Close should report the 2 repeats still counted:\n%s", strings.Join(got, "\n"))
	}
}

func TestOnlyOrdinaryMethods(t *testing.T) {
	t.Parallel()
	var up seen
	srv := httptest.NewServer(up.handler(ok))
	defer srv.Close()
	s := New(grantFor(t, srv.URL), hclog.NewNullLogger())
	defer s.Close()
	for _, m := range []string{"TRACE", "TRACK", "CONNECT", "PROPFIND", "get", "GET /x HTTP/1.1\r\nHost: evil"} {
		_, err := do(t, s, &sdk.EgressRequest{Method: m, URL: srv.URL})
		if !errors.Is(err, sdk.ErrEgressDenied) || !strings.Contains(err.Error(), "method") {
			t.Errorf("%q: err = %v, want egress denied naming the method", m, err)
		}
	}
	if n := up.count(); n != 0 {
		t.Fatalf("upstream received %d refused requests", n)
	}
	for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", ""} {
		if _, err := do(t, s, &sdk.EgressRequest{Method: m, URL: srv.URL}); err != nil {
			t.Errorf("%q: %v", m, err)
			continue
		}
		want := m
		if m == "" {
			want = "GET"
		}
		if got := up.last(t).Method; got != want {
			t.Errorf("%q: upstream saw %s", m, got)
		}
	}
}

func (s *seen) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

func (s *seen) path(p string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.reqs {
		if r.URL.Path == p {
			return true
		}
	}
	return false
}

// resolver answers every name with the addresses the test gives it.
func resolver(addrs ...string) Lookup {
	return func(context.Context, string) ([]netip.Addr, error) {
		var out []netip.Addr
		for _, a := range addrs {
			out = append(out, netip.MustParseAddr(a))
		}
		return out, nil
	}
}

func TestInternalDestinationsNeedALiteralEntry(t *testing.T) {
	t.Parallel()
	var up seen
	srv := httptest.NewServer(up.handler(ok))
	t.Cleanup(srv.Close) // the parallel subtests outlive this function
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	for _, c := range []struct {
		name    string
		entry   string // the allow entry, "" for the request URL itself
		url     string
		resolve []string
		denied  string // "" when the request must reach the upstream
	}{
		{"IP literal entry", "", srv.URL, nil, ""},
		{"localhost entry", "", "http://localhost:" + port, []string{"127.0.0.1"}, ""},
		{"name resolving to loopback", "", "http://api.example.test:" + port, []string{"127.0.0.1"}, "loopback"},
		{"wildcard resolving to loopback", "http://*.example.test:" + port, "http://api.example.test:" + port, []string{"127.0.0.1"}, "loopback"},
		{"name resolving to IPv4-mapped loopback", "", "http://api.example.test:" + port, []string{"::ffff:127.0.0.1"}, "loopback"},
		{"name resolving to the metadata address", "", "http://metadata.example.test:" + port, []string{"169.254.169.254"}, "link-local"},
		{"name resolving to RFC 1918", "", "http://nas.example.test:" + port, []string{"10.0.0.1", "192.168.1.2"}, "private"},
		{"name resolving to 0.0.0.0", "", "http://zero.example.test:" + port, []string{"0.0.0.0"}, "unspecified"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			entry := c.entry
			if entry == "" {
				entry = c.url
			}
			path := "/" + strings.ReplaceAll(c.name, " ", "-")
			var logs logbuf.Buffer // safe to read while a tunnel or request still logs
			s := New(grantFor(t, entry), hclog.New(&hclog.LoggerOptions{Output: &logs}), WithLookup(resolver(c.resolve...)))
			defer s.Close()
			_, err := do(t, s, &sdk.EgressRequest{Method: "GET", URL: c.url + path})
			if c.denied == "" {
				if err != nil || !up.path(path) {
					t.Fatalf("err = %v, upstream reached: %v; want it reached", err, up.path(path))
				}
				return
			}
			if !errors.Is(err, sdk.ErrEgressDenied) || !strings.Contains(err.Error(), c.denied) {
				t.Fatalf("err = %v, want egress denied naming a %s address", err, c.denied)
			}
			if !strings.Contains(logs.String(), "egress denied") {
				t.Errorf("the refusal was not logged:\n%s", logs.String())
			}
			if up.path(path) {
				t.Error("the upstream was reached")
			}
		})
	}
}

func TestInternalAddressKinds(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "127.8.9.10": "loopback", "::1": "loopback", "::ffff:127.0.0.1": "loopback",
		"169.254.169.254": "link-local", "fe80::1": "link-local", "ff02::1": "link-local",
		"10.1.2.3": "private", "172.16.0.1": "private", "172.31.255.255": "private", "192.168.0.1": "private", "fd00::1": "private", "fc00::1": "private",
		"0.0.0.0": "unspecified", "0.1.2.3": "unspecified", "::": "unspecified",
		"224.0.0.251": "link-local", "239.1.1.1": "multicast", "ff05::1": "multicast",
		"8.8.8.8": "", "172.32.0.1": "", "100.64.0.1": "", "2606:4700::1111": "", "192.0.2.1": "",
	} {
		if got := internal(netip.MustParseAddr(addr)); got != want {
			t.Errorf("internal(%s) = %q, want %q", addr, got, want)
		}
	}
}

func TestLiteralEntries(t *testing.T) {
	t.Parallel()
	a, err := NewAllowList("http://127.0.0.1:11434", "http://[::1]:8080", "localhost:8443", "10.0.0.1:8443", "https://api.example.com", "*.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	for raw, want := range map[string]bool{
		"http://127.0.0.1:11434/v1": true,
		"http://[::1]:8080/":        true,
		"https://localhost:8443/":   true,
		"https://10.0.0.1:8443/":    true,
		"https://api.example.com/":  false,
		"https://127.0.0.1/":        false, // granted only through the wildcard
		"http://127.0.0.1:11435/":   false, // not granted at all
	} {
		u, _ := url.Parse(raw)
		if got := a.literal(u); got != want {
			t.Errorf("literal(%s) = %v, want %v", raw, got, want)
		}
	}
}
