package media

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
)

// nonPublic4 are the IPv4 ranges a fetch may not reach beyond loopback,
// private, link-local, multicast and unspecified (netip's own tests): shared
// carrier and tailnet space, IETF protocol assignments, documentation,
// benchmarking, reserved and broadcast. CGNAT is refused here, unlike in
// host/egress: a client's URL into a tailnet reaches the user's network.
var nonPublic4 = prefixes(
	"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24",
	"198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4",
)

// global6 is the IPv6 global unicast space; inside it, nonPublic6 are
// Teredo, benchmarking, ORCHID, documentation and 6to4 (whose embedded
// IPv4 address could be anything).
var (
	global6    = netip.MustParsePrefix("2000::/3")
	nonPublic6 = prefixes("2001::/32", "2001:2::/48", "2001:10::/28", "2001:20::/28", "2001:db8::/32", "2002::/16", "3fff::/20")
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// nonPublic names the kind of address a is, or "" for a public one.
func nonPublic(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsPrivate():
		return "private"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast():
		return "multicast"
	}
	if a.Is4() {
		for _, p := range nonPublic4 {
			if p.Contains(a) {
				return "reserved"
			}
		}
		if a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
			return "broadcast"
		}
		return ""
	}
	if !global6.Contains(a) {
		return "reserved" // NAT64, discard, unique local, site-local and the rest outside 2000::/3
	}
	for _, p := range nonPublic6 {
		if p.Contains(a) {
			return "reserved"
		}
	}
	return ""
}

// exemptKey carries, from the fetcher's DialContext to the dialer's
// Control, whether the host:port being dialed is one the configuration
// allows at any address. It is decided per dial, from the dialed name, so
// a redirect from an allowed origin to another host is checked afresh.
type exemptKey struct{}

// checkDestination is the dialer's ControlContext: it runs on every
// address actually being connected to, after resolution.
func checkDestination(ctx context.Context, _, address string, _ syscall.RawConn) error {
	if exempt, _ := ctx.Value(exemptKey{}).(bool); exempt {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &destinationError{addr: address, kind: "unparsable"}
	}
	if kind := nonPublic(ap.Addr()); kind != "" {
		return &destinationError{addr: ap.Addr().Unmap().String(), kind: kind}
	}
	return nil
}

// destinationError is a dial refused by checkDestination.
type destinationError struct{ addr, kind string }

func (e *destinationError) Error() string {
	return fmt.Sprintf("it resolves to %s, a %s address, which is not fetched unless axon { media { allow } } lists its origin", e.addr, e.kind)
}

// dial marks whether addr (the URL's host:port) is allowed at any address
// and dials it through the checking dialer.
func (f *Fetcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	exempt := f.allowed[hostPort(host, port)]
	return f.dialer.DialContext(context.WithValue(ctx, exemptKey{}, exempt), network, addr)
}

func hostPort(host, port string) string {
	return net.JoinHostPort(strings.TrimSuffix(strings.ToLower(host), "."), port)
}
