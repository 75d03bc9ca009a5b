package egress

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// Origin is scheme, host and port: the unit the allow list grants.
type Origin struct {
	Scheme string
	Host   string // lower case, no port
	Port   string
}

func (o Origin) String() string { return o.Scheme + "://" + net.JoinHostPort(o.Host, o.Port) }

// ParseOrigin reads a URL ("https://api.z.ai/api/anthropic") or a bare host
// ("api.openai.com", "localhost:8080", meaning https).
func ParseOrigin(s string) (Origin, error) {
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" {
		return Origin{}, fmt.Errorf("egress: %q is not a host or URL", s)
	}
	return originOf(u)
}

func originOf(u *url.URL) (Origin, error) {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	switch scheme {
	case "https":
		if port == "" {
			port = "443"
		}
	case "http":
		if port == "" {
			port = "80"
		}
	default:
		return Origin{}, fmt.Errorf("egress: scheme %q is not http or https", u.Scheme)
	}
	return Origin{Scheme: scheme, Host: strings.ToLower(u.Hostname()), Port: port}, nil
}

// AllowList is a set of origins. An origin whose host starts with "*."
// grants every subdomain of the rest (not the bare domain itself), on the
// same scheme and port.
type AllowList map[Origin]bool

// NewAllowList parses every entry; an unparsable entry is an error.
func NewAllowList(entries ...string) (AllowList, error) {
	a := AllowList{}
	for _, e := range entries {
		if e == "" {
			continue
		}
		o, err := ParseOrigin(e)
		if err != nil {
			return nil, err
		}
		if strings.Contains(strings.TrimPrefix(o.Host, "*."), "*") {
			return nil, fmt.Errorf("egress: %q: a wildcard may only be a leading \"*.\"", e)
		}
		a[o] = true
	}
	return a, nil
}

// Allows reports whether u's origin is granted.
func (a AllowList) Allows(u *url.URL) bool {
	o, err := originOf(u)
	if err != nil {
		return false
	}
	if a[o] {
		return true
	}
	for host := o.Host; ; {
		_, parent, ok := strings.Cut(host, ".")
		if !ok || parent == "" {
			return false
		}
		if a[Origin{Scheme: o.Scheme, Host: "*." + parent, Port: o.Port}] {
			return true
		}
		host = parent
	}
}

// literal reports whether u's origin is granted by an entry that names its
// address outright, an IP literal or localhost: only such an entry may
// reach a loopback, link-local or private address. A wildcard or a host
// name never does, whatever it resolves to.
func (a AllowList) literal(u *url.URL) bool {
	o, err := originOf(u)
	if err != nil || !a[o] {
		return false
	}
	host := strings.TrimSuffix(o.Host, ".")
	if host == "localhost" {
		return true
	}
	_, err = netip.ParseAddr(host)
	return err == nil
}
