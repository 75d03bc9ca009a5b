package egress

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/hcl/credref"
	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/sdk"
)

// rawUpstream is a TCP listener on 127.0.0.1 that hands the test every
// connection it accepts, in the order they arrived.
type rawUpstream struct {
	l     net.Listener
	conns chan net.Conn
}

func newRawUpstream(t *testing.T) *rawUpstream {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &rawUpstream{l: l, conns: make(chan net.Conn, 64)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u.conns <- c
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		close(u.conns)
		for c := range u.conns {
			c.Close()
		}
	})
	return u
}

func (u *rawUpstream) addr() string { return u.l.Addr().String() }

func (u *rawUpstream) port() string { _, p, _ := net.SplitHostPort(u.addr()); return p }

// accept returns the next connection the upstream received.
func (u *rawUpstream) accept(t *testing.T) *net.TCPConn {
	t.Helper()
	select {
	case c := <-u.conns:
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(hangGuard))
		return c.(*net.TCPConn)
	case <-time.After(hangGuard):
		t.Fatalf("the upstream received no connection within %s", hangGuard)
		panic("unreachable")
	}
}

// nothingDialed proves no connection reached the upstream before now: a
// marker dialed by the test must be the next one accepted.
func (u *rawUpstream) nothingDialed(t *testing.T) {
	t.Helper()
	m, err := net.Dial("tcp", u.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if c := u.accept(t); c.RemoteAddr().String() != m.LocalAddr().String() {
		t.Errorf("the upstream was dialed (from %s)", c.RemoteAddr())
	}
}

// pipePair is the plugin side as net.Pipe: no half close. The test's end
// has a deadline only as a hang guard, as have the upstream's connections.
func pipePair(t *testing.T) (test, host net.Conn) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close() })
	a.SetDeadline(time.Now().Add(hangGuard))
	return a, b
}

// tcpPair is the plugin side as a loopback TCP connection: it half-closes.
func tcpPair(t *testing.T) (test, host net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	a, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	a.SetDeadline(time.Now().Add(hangGuard))
	b, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

// startTunnel runs s.Tunnel in the background and returns the wait for
// its result. ctx must derive from t.Context(), so that a failing test
// still ends the tunnel before its cleanup waits for it.
func startTunnel(t *testing.T, s *Service, ctx context.Context, hostport string, plugin net.Conn) func() error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Tunnel(ctx, hostport, plugin) }()
	var err error
	ended := false
	wait := func() error {
		t.Helper()
		if !ended {
			select {
			case err = <-done:
				ended = true
			case <-time.After(hangGuard):
				t.Fatalf("Tunnel(%s) did not end within %s", hostport, hangGuard)
			}
		}
		return err
	}
	t.Cleanup(func() { wait() })
	return wait
}

// tunnelTo runs one tunnel to its end.
func tunnelTo(t *testing.T, s *Service, hostport string) (test net.Conn, err error) {
	t.Helper()
	test, host := pipePair(t)
	return test, startTunnel(t, s, t.Context(), hostport, host)()
}

// pluginClosed checks Tunnel closed the plugin's side.
func pluginClosed(t *testing.T, test net.Conn) {
	t.Helper()
	if _, err := test.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("the plugin's side is still open: write: %v", err)
	}
}

func randomBytes(seed uint64, n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(seed)})
	r.Read(b)
	return b
}

func logger(w io.Writer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Output: w, Level: hclog.Trace})
}

// noLookup fails the test if a name is resolved: nothing may be dialed.
func noLookup(t *testing.T) Option {
	return WithLookup(func(_ context.Context, host string) ([]netip.Addr, error) {
		t.Errorf("a refused tunnel resolved %q", host)
		return nil, errors.New("no lookups here")
	})
}

// connectLine is the log line of the one finished tunnel.
func connectLine(t *testing.T, logs string) string {
	t.Helper()
	var found []string
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, " method=CONNECT ") && strings.Contains(l, " duration=") {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one finished tunnel line, got %d:\n%s", len(found), logs)
	}
	return found[0]
}

// TestTunnelCarriesTLSEndToEnd: the plugin's own TLS client talks to an
// HTTPS upstream through the tunnel, and the upstream sees no credential.
func TestTunnelCarriesTLSEndToEnd(t *testing.T) {
	t.Parallel()
	auth := make(chan string, 1)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth <- r.Header.Get("Authorization") + r.Header.Get("X-Api-Key")
		io.WriteString(w, "through the tunnel")
	}))
	t.Cleanup(srv.Close)
	al, err := NewAllowList(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	type stat struct {
		plugin, host string
		status       int
		bytes        int64
	}
	stats := make(chan stat, 1)
	var logs logbuf.Buffer // safe to read while a tunnel or request still logs
	s := New(Grant{Plugin: "p", Allow: al, Inject: al, Proxy: true, Auth: sdk.Auth{Scheme: sdk.AuthBearer}, Credential: credref.MustParse("env:KEY")},
		logger(&logs), WithEnv(env), WithStats(func(plugin, host string, status int, n int64, _ time.Duration) {
			stats <- stat{plugin, host, status, n}
		}))
	t.Cleanup(s.Close)
	hostport := srv.Listener.Addr().String()
	test, host := pipePair(t)
	wait := startTunnel(t, s, t.Context(), hostport, host)

	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	tc := tls.Client(test, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	if _, err := io.WriteString(tc, "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(tc)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil || string(body) != "through the tunnel" {
		t.Fatalf("body %q, err %v", body, err)
	}
	io.Copy(io.Discard, br) // to the server's close_notify and close
	if err := wait(); err != nil {
		t.Fatalf("Tunnel: %v", err)
	}
	if got := <-auth; got != "" {
		t.Errorf("the upstream received a credential %q", got)
	}
	line := connectLine(t, logs.String())
	for _, want := range []string{"plugin=p", "host=" + hostport, "status=200"} {
		if !strings.Contains(line, want) {
			t.Errorf("the tunnel's line lacks %s: %s", want, line)
		}
	}
	if strings.Contains(line, "error=") || strings.Contains(line, " sent=0 ") || strings.Contains(line, " bytes=0 ") {
		t.Errorf("a clean tunnel logged as %s", line)
	}
	if got := <-stats; got.plugin != "p" || got.host != hostport || got.status != 200 || got.bytes == 0 {
		t.Errorf("stats %+v", got)
	}
}

// TestTunnelBytesUntouched: what each side sends arrives byte for byte,
// with nothing added before, between or after, and each end of stream is
// passed on: as a half close when the plugin's side can take one.
func TestTunnelBytesUntouched(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		pair      func(*testing.T) (net.Conn, net.Conn)
		halfClose bool
	}{
		{"net.Pipe", pipePair, false},
		{"TCP, half-closed", tcpPair, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			up := newRawUpstream(t)
			s := New(proxyGrant(t, "https://"+up.addr()), hclog.NewNullLogger())
			t.Cleanup(s.Close)
			test, host := c.pair(t)
			wait := startTunnel(t, s, t.Context(), up.addr(), host)
			conn := up.accept(t)
			payload := append([]byte("CONNECT evil.example:443 HTTP/1.1\r\nAuthorization: x\r\n\r\n"), randomBytes(1, 200<<10)...)
			reply := randomBytes(2, 150<<10)

			wrote := make(chan error, 1)
			go func() {
				_, err := test.Write(payload)
				if c.halfClose && err == nil {
					err = test.(*net.TCPConn).CloseWrite()
				}
				wrote <- err
			}()
			got := make([]byte, len(payload))
			var err error
			if c.halfClose {
				got, err = io.ReadAll(conn) // ends only if the half close came through
			} else {
				_, err = io.ReadFull(conn, got)
			}
			if err != nil || !bytes.Equal(got, payload) || <-wrote != nil {
				t.Fatalf("the upstream read %d bytes (err %v), equal to the %d sent: %v", len(got), err, len(payload), bytes.Equal(got, payload))
			}

			answered := make(chan error, 1)
			go func() {
				_, err := conn.Write(reply)
				if err == nil {
					err = conn.CloseWrite()
				}
				answered <- err
			}()
			back, err := io.ReadAll(test)
			if err != nil || !bytes.Equal(back, reply) || <-answered != nil {
				t.Fatalf("the plugin read %d bytes (err %v), equal to the %d sent: %v", len(back), err, len(reply), bytes.Equal(back, reply))
			}
			if err := wait(); err != nil {
				t.Fatalf("Tunnel: %v", err)
			}
			if rest, _ := io.ReadAll(conn); len(rest) != 0 {
				t.Errorf("the upstream received %d more bytes: %q", len(rest), rest)
			}
		})
	}
}

// TestTunnelAllowList: a tunnel is allowed exactly where an HTTPS request
// would be, and a name that resolves to an internal address needs an
// entry naming it outright. A refused tunnel dials nothing.
func TestTunnelAllowList(t *testing.T) {
	t.Parallel()
	up := newRawUpstream(t) // shared: the subtests run one after another
	port := up.port()
	for _, c := range []struct {
		name     string
		entry    string
		hostport string
		resolve  []string
		denied   string // "" when the tunnel must reach the upstream
	}{
		{"IP literal entry", "https://127.0.0.1:" + port, "127.0.0.1:" + port, nil, ""},
		{"localhost entry", "https://localhost:" + port, "localhost:" + port, []string{"127.0.0.1"}, ""},
		{"host off the list", "https://api.example.com", "127.0.0.1:" + port, nil, "allow list"},
		{"http entry grants no tunnel", "http://127.0.0.1:" + port, "127.0.0.1:" + port, nil, "allow list"},
		{"another port", "https://api.example.test", "api.example.test:8443", []string{"127.0.0.1"}, "allow list"},
		{"443 is the https default", "https://api.example.test", "api.example.test:443", []string{"127.0.0.1"}, "loopback"},
		{"name resolving to loopback", "https://api.example.test:" + port, "api.example.test:" + port, []string{"127.0.0.1"}, "loopback"},
		{"wildcard resolving to loopback", "https://*.example.test:" + port, "api.example.test:" + port, []string{"127.0.0.1"}, "loopback"},
		{"name resolving to the metadata address", "https://metadata.example.test:" + port, "metadata.example.test:" + port, []string{"169.254.169.254"}, "link-local"},
		{"name resolving to IPv4-mapped loopback", "https://api.example.test:" + port, "api.example.test:" + port, []string{"::ffff:127.0.0.1"}, "loopback"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var logs logbuf.Buffer // safe to read while a tunnel or request still logs
			s := New(proxyGrant(t, c.entry), logger(&logs), WithLookup(resolver(c.resolve...)))
			t.Cleanup(s.Close)
			test, host := pipePair(t)
			wait := startTunnel(t, s, t.Context(), c.hostport, host)
			if c.denied == "" {
				conn := up.accept(t)
				test.Close() // the plugin ends: the upstream sees its end of stream
				if rest, err := io.ReadAll(conn); err != nil || len(rest) != 0 {
					t.Errorf("the upstream read %q, %v", rest, err)
				}
				conn.Close()
				if err := wait(); err != nil {
					t.Fatalf("Tunnel: %v", err)
				}
				return
			}
			err := wait()
			if !errors.Is(err, sdk.ErrEgressDenied) || !errors.Is(err, sdk.ErrPermanent) || !strings.Contains(err.Error(), c.denied) {
				t.Fatalf("err = %v, want a permanent egress denied naming %s", err, c.denied)
			}
			if !strings.Contains(logs.String(), "egress denied") || !strings.Contains(logs.String(), "method=CONNECT") {
				t.Errorf("the refusal was not logged:\n%s", logs.String())
			}
			pluginClosed(t, test)
			up.nothingDialed(t)
		})
	}
}

// TestTunnelRefusesMalformedTargets: anything but a strict host:port is
// refused before a name is resolved.
func TestTunnelRefusesMalformedTargets(t *testing.T) {
	t.Parallel()
	for _, hostport := range []string{
		"", "example.com", "example.com:", ":443", "example.com:0", "example.com:65536", "example.com:-1",
		"example.com:+443", "example.com:0443", "example.com:https", "example.com:443:443",
		"::1:443", "[::1]", "[example.com]:443", "[127.0.0.1]:443", "[fe80::1%eth0]:443",
		"exa mple.com:443", "example.com/x:443", "user@example.com:443", "example.com:443\r\nHost: x",
		"example..com:443", "-example.com:443", "example-.com:443", "http://example.com:443",
		"127.1:443", "2130706433:443", "01.2.3.4:443", "0x7f.0.0.1:443", "*.example.com:443",
		strings.Repeat("a", 64) + ".example.com:443", strings.Repeat("a.", 127) + "com:443",
	} {
		t.Run(hostport, func(t *testing.T) {
			t.Parallel()
			var logs logbuf.Buffer // safe to read while a tunnel or request still logs
			s := New(proxyGrant(t, "https://example.com", "https://*.example.com"), logger(&logs), noLookup(t))
			t.Cleanup(s.Close)
			test, err := tunnelTo(t, s, hostport)
			if !errors.Is(err, sdk.ErrEgressDenied) || !errors.Is(err, sdk.ErrPermanent) || strings.Contains(err.Error(), "allow list") {
				t.Fatalf("err = %v, want a permanent egress denied for the target's form, before the allow list", err)
			}
			if strings.ContainsAny(err.Error(), "\r\n") || strings.ContainsAny(logs.String(), "\r") {
				t.Errorf("the target's control characters got through: %q\n%s", err, logs.String())
			}
			pluginClosed(t, test)
		})
	}
}

func TestCheckHostPortAccepts(t *testing.T) {
	t.Parallel()
	for _, hostport := range []string{
		"example.com:443", "API.Example.COM:443", "example.com.:443", "a-b_c.example:1", "x:65535",
		"1.2.3.4:8443", "[2001:db8::1]:443", "[::ffff:1.2.3.4]:443", strings.Repeat("a", 63) + ".com:443",
	} {
		if why := checkHostPort(hostport); why != "" {
			t.Errorf("%s refused: %s", hostport, why)
		}
	}
}

// TestTunnelByteLimits: each direction may carry its limit and not a byte
// more; past it the tunnel ends with a permanent egress limit naming the
// setting, having passed on no byte beyond it.
func TestTunnelByteLimits(t *testing.T) {
	t.Parallel()
	const limit = 100
	for _, c := range []struct {
		name     string
		up, down int // bytes the plugin, and the upstream, send
		want     string
	}{
		{"both at the limit", limit, limit, ""},
		{"the plugin past the limit", limit + 1, 0, "max_request_bytes"},
		{"the upstream past the limit", 0, limit + 1, "max_response_bytes"},
		{"the plugin far past the limit", 10 * tunnelBuffer, 0, "max_request_bytes"},
		{"the upstream far past the limit", 0, 10 * tunnelBuffer, "max_response_bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			up := newRawUpstream(t)
			g := proxyGrant(t, "https://"+up.addr())
			g.MaxRequestBytes, g.MaxResponseBytes = limit, limit
			s := New(g, hclog.NewNullLogger())
			t.Cleanup(s.Close)
			test, host := tcpPair(t)
			wait := startTunnel(t, s, t.Context(), up.addr(), host)
			conn := up.accept(t)
			send := func(w *net.TCPConn, n int) {
				w.Write(randomBytes(3, n)) // past a limit, the tunnel may close before all is sent
				w.CloseWrite()
			}
			go send(test.(*net.TCPConn), c.up)
			go send(conn, c.down)
			received := make(chan int, 1)
			go func() { b, _ := io.ReadAll(conn); received <- len(b) }()
			back, _ := io.ReadAll(test)
			err := wait()
			upstreamGot := <-received
			if c.want == "" {
				if err != nil || upstreamGot != c.up || len(back) != c.down {
					t.Fatalf("err = %v, the upstream got %d bytes, the plugin %d; want no error, %d and %d", err, upstreamGot, len(back), c.up, c.down)
				}
				return
			}
			if !errors.Is(err, sdk.ErrEgressLimit) || !errors.Is(err, sdk.ErrPermanent) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want a permanent egress limit naming %s", err, c.want)
			}
			if upstreamGot > limit || len(back) > limit {
				t.Errorf("the upstream got %d bytes, the plugin %d: past the %d byte limit", upstreamGot, len(back), limit)
			}
		})
	}
}

// TestTunnelEnds: a silent tunnel ends at total_timeout, and any tunnel
// when the caller cancels; both ends are closed.
func TestTunnelEnds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		grant func(*Grant)
		end   func(cancel context.CancelFunc) // after the upstream accepted
		check func(error) bool
	}{
		{"total_timeout", func(g *Grant) { g.TotalTimeout = 100 * time.Millisecond }, func(context.CancelFunc) {},
			func(err error) bool {
				return errors.Is(err, sdk.ErrTimeout) && errors.Is(err, sdk.ErrTransient) && strings.Contains(err.Error(), "total_timeout")
			}},
		{"cancelled", func(*Grant) {}, func(cancel context.CancelFunc) { cancel() },
			func(err error) bool { return errors.Is(err, context.Canceled) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			up := newRawUpstream(t)
			g := proxyGrant(t, "https://"+up.addr())
			c.grant(&g)
			var logs logbuf.Buffer // safe to read while a tunnel or request still logs
			s := New(g, logger(&logs))
			t.Cleanup(s.Close)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			test, host := pipePair(t)
			wait := startTunnel(t, s, ctx, up.addr(), host)
			conn := up.accept(t)
			c.end(cancel)
			if err := wait(); !c.check(err) {
				t.Fatalf("err = %v", err)
			}
			if rest, err := io.ReadAll(conn); err != nil || len(rest) != 0 {
				t.Errorf("the upstream's end: read %q, %v; want it closed", rest, err)
			}
			pluginClosed(t, test)
			if line := connectLine(t, logs.String()); !strings.Contains(line, "error=") {
				t.Errorf("the tunnel's end was logged without its error: %s", line)
			}
		})
	}
}

// TestTunnelConcurrencyCap: open tunnels hold max_concurrent slots, the
// same ones Do's requests take, until they end.
func TestTunnelConcurrencyCap(t *testing.T) {
	t.Parallel()
	up := newRawUpstream(t)
	g := proxyGrant(t, "https://"+up.addr(), "http://"+up.addr())
	g.MaxConcurrent = 2
	var logs logbuf.Buffer // safe to read while a tunnel or request still logs
	s := New(g, logger(&logs))
	t.Cleanup(s.Close)
	type open struct {
		test net.Conn
		conn *net.TCPConn
		wait func() error
	}
	start := func() open {
		test, host := pipePair(t)
		wait := startTunnel(t, s, t.Context(), up.addr(), host)
		return open{test, up.accept(t), wait}
	}
	first := start()
	start()

	test, err := tunnelTo(t, s, up.addr())
	if !errors.Is(err, sdk.ErrEgressLimit) || !errors.Is(err, sdk.ErrTransient) || !strings.Contains(err.Error(), "max_concurrent") {
		t.Fatalf("a third tunnel while two are open: err = %v, want a transient egress limit naming max_concurrent", err)
	}
	pluginClosed(t, test)
	up.nothingDialed(t)
	if _, err := do(t, s, &sdk.EgressRequest{Method: "GET", URL: "http://" + up.addr()}); !errors.Is(err, sdk.ErrEgressLimit) {
		t.Fatalf("a request while two tunnels are open: err = %v, want an egress limit", err)
	}
	if !strings.Contains(logs.String(), "max_concurrent") || !strings.Contains(logs.String(), "method=CONNECT") {
		t.Errorf("the refusal was not logged:\n%s", logs.String())
	}

	first.test.Close()
	io.ReadAll(first.conn)
	first.conn.Close()
	if err := first.wait(); err != nil {
		t.Fatalf("the first tunnel: %v", err)
	}
	start() // its slot is free again
}

// TestTunnelDialFailures: a dial that fails is a transient error composed
// here, naming the host asked for and no address net tried.
func TestTunnelDialFailures(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	for _, c := range []struct {
		name     string
		hostport string
		lookup   Lookup
		timeout  bool
		want     string
	}{
		{"connection refused", closed, nil, false, "connection refused"},
		{"no such host", "nowhere.example.test:443", func(_ context.Context, host string) ([]netip.Addr, error) {
			return nil, &net.DNSError{Err: "no such host", Name: host, Server: "10.9.8.7:53", IsNotFound: true}
		}, false, "no such host"},
		{"connect_timeout", "slow.example.test:443", func(ctx context.Context, _ string) ([]netip.Addr, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, true, "connect_timeout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := proxyGrant(t, "https://"+c.hostport)
			g.ConnectTimeout = 50 * time.Millisecond
			var logs logbuf.Buffer // safe to read while a tunnel or request still logs
			var opts []Option
			if c.lookup != nil {
				opts = append(opts, WithLookup(c.lookup))
			}
			s := New(g, logger(&logs), opts...)
			t.Cleanup(s.Close)
			test, err := tunnelTo(t, s, c.hostport)
			if !errors.Is(err, sdk.ErrTransient) || errors.Is(err, sdk.ErrTimeout) != c.timeout || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want transient naming %s (timeout: %v)", err, c.want, c.timeout)
			}
			for _, leak := range []string{"dial", "10.9.8.7", "lookup"} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("the error repeats net's own: %v", err)
				}
			}
			pluginClosed(t, test)
			if line := connectLine(t, logs.String()); !strings.Contains(line, "status=0") || !strings.Contains(line, c.want) {
				t.Errorf("the failed tunnel's line: %s", line)
			}
		})
	}
}

// tunnelGoroutines lists the goroutines running tunnel code.
func tunnelGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "egress.(*tunnel)") || strings.Contains(g, "egress.(*Service).Tunnel") {
			out = append(out, g)
		}
	}
	return out
}

// TestTunnelLeavesNoGoroutine: however a tunnel ends, no goroutine of its
// outlives Tunnel. Not parallel: the parallel tests, paused while it runs,
// hold no tunnel open.
func TestTunnelLeavesNoGoroutine(t *testing.T) {
	up := newRawUpstream(t)
	for _, c := range []struct {
		name  string
		total time.Duration // the grant's total_timeout; 0: the default
		run   func(t *testing.T, s *Service)
	}{
		{"finished", 0, func(t *testing.T, s *Service) {
			test, host := pipePair(t)
			wait := startTunnel(t, s, t.Context(), up.addr(), host)
			conn := up.accept(t)
			conn.Write([]byte("bye"))
			conn.Close()
			io.ReadAll(test)
			if err := wait(); err != nil {
				t.Fatal(err)
			}
		}},
		{"limit", 0, func(t *testing.T, s *Service) {
			test, host := pipePair(t)
			wait := startTunnel(t, s, t.Context(), up.addr(), host)
			up.accept(t)
			go test.Write(make([]byte, 200))
			if err := wait(); !errors.Is(err, sdk.ErrEgressLimit) {
				t.Fatal(err)
			}
		}},
		{"total_timeout", 20 * time.Millisecond, func(t *testing.T, s *Service) {
			_, host := pipePair(t)
			wait := startTunnel(t, s, t.Context(), up.addr(), host)
			up.accept(t)
			if err := wait(); !errors.Is(err, sdk.ErrTimeout) {
				t.Fatal(err)
			}
		}},
		{"cancelled", 0, func(t *testing.T, s *Service) {
			ctx, cancel := context.WithCancel(t.Context())
			_, host := pipePair(t)
			wait := startTunnel(t, s, ctx, up.addr(), host)
			up.accept(t)
			cancel()
			if err := wait(); !errors.Is(err, context.Canceled) {
				t.Fatal(err)
			}
		}},
		{"refused", 0, func(t *testing.T, s *Service) {
			if _, err := tunnelTo(t, s, "elsewhere.example:443"); !errors.Is(err, sdk.ErrEgressDenied) {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := proxyGrant(t, "https://"+up.addr())
			g.MaxRequestBytes, g.TotalTimeout = 100, c.total
			s := New(g, hclog.NewNullLogger())
			defer s.Close()
			c.run(t, s)
			if left := tunnelGoroutines(); len(left) > 0 {
				t.Errorf("%d goroutines outlived Tunnel:\n%s", len(left), strings.Join(left, "\n\n"))
			}
		})
	}
}

// establishing is a plugin side with an Established method, recording
// whether any Read or Write came before it.
type establishing struct {
	net.Conn
	mu          sync.Mutex
	established int
	early       bool // a Read or Write before Established
}

func (e *establishing) Established() { e.mu.Lock(); e.established++; e.mu.Unlock() }

func (e *establishing) before() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.established == 0 {
		e.early = true
	}
}

func (e *establishing) Read(p []byte) (int, error)  { e.before(); return e.Conn.Read(p) }
func (e *establishing) Write(p []byte) (int, error) { e.before(); return e.Conn.Write(p) }

// TestTunnelEstablished: the plugin's side hears Established once the
// upstream is connected, before any byte moves, and never for a tunnel
// refused or not connected.
func TestTunnelEstablished(t *testing.T) {
	t.Parallel()
	up := newRawUpstream(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	for _, c := range []struct {
		name     string
		hostport string
		want     int
	}{
		{"connected", up.addr(), 1},
		{"refused", "elsewhere.example:443", 0},
		{"not connected", closed, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(proxyGrant(t, "https://"+up.addr(), "https://"+closed), hclog.NewNullLogger(), noLookup(t))
			t.Cleanup(s.Close)
			test, host := pipePair(t)
			plugin := &establishing{Conn: host}
			wait := startTunnel(t, s, t.Context(), c.hostport, plugin)
			if c.want > 0 {
				conn := up.accept(t)
				go test.Write([]byte("hello"))
				if _, err := io.ReadFull(conn, make([]byte, 5)); err != nil {
					t.Fatalf("the plugin's bytes did not arrive: %v", err)
				}
				conn.Close()
				io.ReadAll(test)
			}
			wait()
			plugin.mu.Lock()
			defer plugin.mu.Unlock()
			if plugin.established != c.want || plugin.early {
				t.Errorf("Established called %d times (want %d), a Read or Write before it: %v", plugin.established, c.want, plugin.early)
			}
		})
	}
}

// proxyGrant is grantFor with the proxy on, as a proxy block's grant is.
func proxyGrant(t *testing.T, allow ...string) Grant {
	t.Helper()
	g := grantFor(t, allow...)
	g.Proxy = true
	return g
}

// TestTunnelNeedsTheProxy: a block without the proxy gets no tunnel, even
// to a host its allow list names: the host refuses, whatever the plugin's
// own code does.
func TestTunnelNeedsTheProxy(t *testing.T) {
	s := New(grantFor(t, "https://example.com"), hclog.NewNullLogger(), noLookup(t))
	t.Cleanup(s.Close)
	a, b := net.Pipe()
	defer b.Close()
	err := s.Tunnel(context.Background(), "example.com:443", a)
	if !errors.Is(err, sdk.ErrEgressDenied) || !strings.Contains(err.Error(), "does not enable the proxy") {
		t.Fatalf("err = %v, want egress_denied naming the proxy", err)
	}
}
