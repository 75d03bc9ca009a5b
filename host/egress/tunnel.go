package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/axonhq/axon/sdk"
)

// tunnelBuffer is the size of each direction's copy buffer: two per open
// tunnel, so max_concurrent bounds the memory tunnels hold.
const tunnelBuffer = 32 << 10

// errTunnelDone is the cause a tunnel's call ends with when both
// directions ended on their own: not a failure, not the caller's cancel.
var errTunnelDone = errors.New("egress: tunnel finished")

// Tunnel connects plugin to hostport ("host:port", from a CONNECT) and
// copies bytes both ways, untouched, until both directions have ended. It
// is the host side of the HTTPS proxy a plugin's child processes use: the
// content is TLS end to end, so nothing is injected, stripped or inspected.
//
// hostport is refused (egress_denied) unless it is a strict host:port and
// an HTTPS request to it would be allowed; the dial goes through the same
// dialer and destination check as Do's. The tunnel holds one of the
// max_concurrent slots for its whole life, counts plugin→upstream bytes
// against max_request_bytes and upstream→plugin bytes against
// max_response_bytes, and ends at total_timeout or when ctx ends.
//
// Tunnel always closes plugin before it returns, and reads nothing from it
// and writes nothing to it until the upstream is connected. Then, when
// plugin has an Established method, it calls it once, before any Read or
// Write (the plugin's proxy then answers the CONNECT with 200); it is never
// called for a tunnel refused or not connected. plugin's Close must unblock
// a Read, Write or Established in progress. The plugin's end of stream
// half-closes the upstream connection; the upstream's half-closes plugin
// when it has a CloseWrite method, and without one ends the tunnel. It
// returns nil when both directions ended, or when the plugin stopped taking
// bytes.
func (s *Service) Tunnel(ctx context.Context, hostport string, plugin io.ReadWriteCloser) error {
	start := time.Now()
	closePlugin := sync.OnceFunc(func() { plugin.Close() })
	defer closePlugin()
	const method = "CONNECT"

	if !s.grant.Proxy {
		return s.deny(method, strconv.Quote(clip(hostport, 64)), "this plugin's block does not enable the proxy (egress { proxy = true })")
	}
	if why := checkHostPort(hostport); why != "" {
		return s.deny(method, strconv.Quote(clip(hostport, 64)), why)
	}
	u := &url.URL{Scheme: "https", Host: hostport}
	// As an https URL shows it, so logs and metrics name a host alike
	// whether it was reached by Do or through a tunnel.
	host := strings.TrimSuffix(hostport, ":443")
	if !s.grant.Allow.Allows(u) {
		return s.deny(method, host, "host is not on this plugin's allow list")
	}
	c, err := s.begin(ctx, nil)
	if err != nil {
		s.denied.log(method, clip(host, 255), "max_concurrent requests already in flight")
		return err
	}
	defer c.end()

	connectTimeout := &sdk.Error{Class: sdk.ClassTransient, Code: sdk.ErrTimeout.Code,
		Message: fmt.Sprintf("egress: CONNECT %s: not connected within connect_timeout %s", host, s.grant.ConnectTimeout)}
	dctx, stop := context.WithTimeoutCause(withLiteral(c.ctx, s.grant.Allow.literal(u)), s.grant.ConnectTimeout, connectTimeout)
	up, err := s.dial(dctx, "tcp", hostport)
	timedOut := dctx.Err() != nil && c.ctx.Err() == nil
	stop()
	if err != nil {
		e := s.dialError(ctx, c, host, err, timedOut, connectTimeout)
		c.end()
		s.finishTunnel(host, 0, 0, 0, start, e)
		return e
	}

	t := &tunnel{c: c, host: host, up: up, closePlugin: closePlugin}
	t.open.Add(2)
	var wg sync.WaitGroup
	wg.Go(t.watch) // first: a deadline or a cancel also ends a blocked Established
	// Logged before the plugin hears of it: an operator following the
	// debug log sees a tunnel while it is open, not only when it ends.
	s.logger.Debug("egress: tunnel open", "method", "CONNECT", "host", host)
	if e, ok := plugin.(interface{ Established() }); ok && c.ctx.Err() == nil {
		e.Established()
	}
	wg.Go(func() {
		t.pump(&t.sent, direction{src: plugin, dst: up, limit: s.grant.MaxRequestBytes, name: "max_request_bytes",
			srcIsPlugin: true, what: "the plugin sent"})
	})
	wg.Go(func() {
		t.pump(&t.received, direction{src: up, dst: plugin, limit: s.grant.MaxResponseBytes, name: "max_response_bytes",
			what: "the upstream sent"})
	})
	wg.Wait()

	switch cause := context.Cause(c.ctx); {
	case cause == errTunnelDone:
		err = nil
	case c.failure() != nil:
		err = c.failure()
	case ctx.Err() != nil:
		err = ctx.Err()
	default:
		err = cause
	}
	c.end()
	s.finishTunnel(host, 200, t.sent, t.received, start, err)
	return err
}

// checkHostPort reads a CONNECT target strictly and says why it is
// refused, "" when it is not: a DNS name or an IPv4 address, or an IPv6
// address in brackets, then a port from 1 to 65535 in plain decimal.
func checkHostPort(hostport string) string {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return "not host:port"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
		return "the port is not a number from 1 to 65535"
	}
	if strings.HasPrefix(hostport, "[") {
		a, err := netip.ParseAddr(host)
		switch {
		case err != nil || !a.Is6():
			return "only an IPv6 address may be in brackets"
		case a.Zone() != "":
			return "an IPv6 zone is refused"
		}
		return ""
	}
	if a, err := netip.ParseAddr(host); err == nil && a.Is4() {
		return ""
	}
	if !hostName(host) {
		return "not a host name or IP address"
	}
	return ""
}

// hostName reports whether h is a DNS name: dot-separated labels of
// letters, digits, hyphens and underscores, none starting or ending with a
// hyphen. A last label of digits only is refused: a resolver may read
// such a name ("127.1", "2130706433") as an IPv4 address.
func hostName(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			switch b := l[i]; {
			case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9', b == '-', b == '_':
			default:
				return false
			}
		}
	}
	return strings.Trim(labels[len(labels)-1], "0123456789") != ""
}

// dialError composes the error of a failed dial: net's own errors name the
// addresses tried, which the plugin has no business learning.
func (s *Service) dialError(ctx context.Context, c *call, host string, err error, timedOut bool, connectTimeout *sdk.Error) error {
	var de *destinationError
	var ne net.Error
	var dns *net.DNSError
	switch {
	case c.failure() != nil:
		return c.failure()
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &de):
		return s.deny("CONNECT", host, de.Error())
	case timedOut, errors.As(err, &ne) && ne.Timeout():
		return connectTimeout
	case errors.As(err, &dns) && dns.IsNotFound:
		return &sdk.Error{Class: sdk.ClassTransient, Message: fmt.Sprintf("egress: CONNECT %s: no such host", host)}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &sdk.Error{Class: sdk.ClassTransient, Message: fmt.Sprintf("egress: CONNECT %s: connection refused", host)}
	}
	return &sdk.Error{Class: sdk.ClassTransient, Message: fmt.Sprintf("egress: CONNECT %s: could not connect", host)}
}

// finishTunnel logs one tunnel as it ended, as finish logs a request:
// bytes is what the upstream sent (a response's bytes), sent what the
// plugin sent; status is 200 once the upstream was connected, 0 before.
func (s *Service) finishTunnel(host string, status int, sent, received int64, start time.Time, err error) {
	d := time.Since(start)
	kv := []any{"method", "CONNECT", "host", host, "status", status, "sent", sent, "bytes", received, "duration", d.Round(time.Microsecond)}
	if err != nil {
		kv = append(kv, "error", err.Error())
	}
	s.logger.Info("egress", kv...)
	if s.stats != nil {
		s.stats(s.grant.Plugin, host, status, received, d)
	}
}

// tunnel is one connected tunnel: two pumps and a watcher that closes both
// ends once the call is over, which is what unblocks a pump.
type tunnel struct {
	c           *call
	host        string
	up          net.Conn
	closePlugin func()
	open        atomic.Int32 // directions still carrying bytes
	sent        int64        // written upstream; read after the pumps end
	received    int64        // written to the plugin
	closeOnce   sync.Once
}

// direction is one way through a tunnel.
type direction struct {
	src         io.Reader
	dst         io.Writer
	limit       int64
	name        string // the limit's setting
	srcIsPlugin bool
	what        string // who sends, for the limit's message
}

// watch closes both ends when the call ends: its deadline, a limit, a
// failure, the caller's cancel, or both directions done.
func (t *tunnel) watch() {
	<-t.c.ctx.Done()
	t.closeOnce.Do(func() {
		t.up.Close()
		t.closePlugin()
	})
}

// pump copies d with one fixed buffer, counting what it writes in n, until
// its source ends or the call does.
func (t *tunnel) pump(n *int64, d direction) {
	buf := make([]byte, tunnelBuffer)
	// A source that answers reads with nothing, even once closed, must not
	// keep a pump spinning past the call's end.
	for t.c.ctx.Err() == nil {
		p := buf
		if remaining := d.limit - *n + 1; int64(len(p)) > remaining {
			p = p[:remaining]
		}
		k, rerr := d.src.Read(p)
		over := *n+int64(k) > d.limit
		if over {
			k = int(d.limit - *n) // the bytes within the limit still go through
		}
		if k > 0 {
			w, werr := d.dst.Write(p[:k])
			*n += int64(w)
			if werr != nil {
				t.writeFailed(d)
				return
			}
		}
		switch {
		case over:
			t.c.abort(&sdk.Error{Class: sdk.ClassPermanent, Code: sdk.ErrEgressLimit.Code,
				Message: fmt.Sprintf("egress: CONNECT %s: %s more than the %d byte limit (%s)", t.host, d.what, d.limit, d.name)})
			return
		case errors.Is(rerr, io.EOF):
			t.eof(d.dst)
			return
		case rerr != nil:
			t.readFailed(d)
			return
		}
	}
}

// eof passes a source's end of stream on by half-closing the other end;
// when that end cannot be half-closed, or it was the second direction to
// end, the tunnel is done.
func (t *tunnel) eof(dst io.Writer) {
	if cw, ok := dst.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
		if t.open.Add(-1) == 0 {
			t.c.cancel(errTunnelDone)
		}
		return
	}
	t.c.cancel(errTunnelDone)
}

// readFailed ends the tunnel for a source that failed. Once the call is
// over the failure is only the close that unblocked the read, and the
// call's cause already says why.
func (t *tunnel) readFailed(d direction) {
	side := "the upstream connection"
	if d.srcIsPlugin {
		side = "the plugin's side of the tunnel"
	}
	t.c.abort(&sdk.Error{Class: sdk.ClassTransient, Message: fmt.Sprintf("egress: CONNECT %s: %s failed", t.host, side)})
}

// writeFailed ends the tunnel for a destination that refused bytes. The
// plugin refusing them has closed its side, which ends the tunnel as a
// reader closing a response body ends a request: without an error.
func (t *tunnel) writeFailed(d direction) {
	if !d.srcIsPlugin {
		t.c.cancel(errTunnelDone)
		return
	}
	t.c.abort(&sdk.Error{Class: sdk.ClassTransient, Message: fmt.Sprintf("egress: CONNECT %s: the upstream connection failed", t.host)})
}
