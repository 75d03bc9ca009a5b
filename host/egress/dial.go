package egress

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// Lookup resolves a host name to its addresses. It replaces the system
// resolver only in tests (WithLookup); the destination check does not
// depend on it, it sees the address being connected to.
type Lookup func(ctx context.Context, host string) ([]netip.Addr, error)

// literalKey carries, from Do to the dialer, whether the request's origin
// was granted by an allow entry that names its address outright.
type literalKey struct{}

func withLiteral(ctx context.Context, literal bool) context.Context {
	return context.WithValue(ctx, literalKey{}, literal)
}

// checkDestination is the dialer's ControlContext: it runs once per
// address actually being connected to, after every resolution, so a name
// that resolves (or rebinds) to an internal address is caught here.
func checkDestination(ctx context.Context, _, address string, _ syscall.RawConn) error {
	if literal, _ := ctx.Value(literalKey{}).(bool); literal {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &destinationError{addr: address, kind: "unparsable"}
	}
	if kind := internal(ap.Addr()); kind != "" {
		return &destinationError{addr: ap.Addr().String(), kind: kind}
	}
	return nil
}

// internal names the kind of address a and reports "" for an ordinary
// public one. CGNAT (100.64.0.0/10) is deliberately public here: it is
// how tailnets and carrier networks address hosts a user may mean.
func internal(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsPrivate():
		return "private"
	case a.IsUnspecified(), a.Is4() && a.As4()[0] == 0:
		return "unspecified" // Linux connects 0.0.0.0 to the local host
	case a.IsMulticast():
		return "multicast"
	}
	return ""
}

// destinationError is a dial refused by checkDestination.
type destinationError struct {
	addr, kind string
}

func (e *destinationError) Error() string {
	return fmt.Sprintf("resolves to %s, a %s address; only an allow entry written as that IP or as localhost may reach one", e.addr, e.kind)
}

// dial connects through the dialer, whose ControlContext checks every
// address. With an injected Lookup it resolves names itself and dials the
// addresses one by one; without, net.Dialer resolves (and races IPv6
// against IPv4) as usual.
func (s *Service) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if s.lookup == nil {
		return s.dialer.DialContext(ctx, network, addr)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return s.dialer.DialContext(ctx, network, addr)
	}
	ips, err := s.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	first := error(&net.DNSError{Err: "no such host", Name: host, IsNotFound: true})
	for i, ip := range ips {
		c, err := s.dialer.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return c, nil
		}
		if i == 0 {
			first = err
		}
	}
	return nil, first
}
