package main

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// origin is scheme, host and port: what an allow entry grants, read the way
// the host's egress reads it (a bare host means https, ports default by
// scheme).
type origin struct {
	scheme   string
	host     string // lower case, no port; for a wildcard, the parent domain
	port     string
	wildcard bool // host matches strict subdomains of host
}

// allowList is the plugin's own copy of the origins it may fetch.
type allowList []origin

func parseAllowList(entries []string) (allowList, error) {
	var a allowList
	for _, e := range entries {
		o, err := parseAllowEntry(e)
		if err != nil {
			return nil, err
		}
		a = append(a, o)
	}
	return a, nil
}

func parseAllowEntry(s string) (origin, error) {
	raw := s
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" || u.User != nil || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
		return origin{}, fmt.Errorf("%q: want an origin such as \"https://example.com\", \"example.com:8443\" or \"*.example.com\"", raw)
	}
	o, err := originOf(u)
	if err != nil {
		return origin{}, fmt.Errorf("%q: %w", raw, err)
	}
	if rest, ok := strings.CutPrefix(o.host, "*."); ok {
		if rest == "" || strings.Contains(rest, "*") {
			return origin{}, fmt.Errorf("%q: a wildcard is \"*.\" followed by a domain", raw)
		}
		o.host, o.wildcard = rest, true
	} else if strings.Contains(o.host, "*") {
		return origin{}, fmt.Errorf("%q: a wildcard is allowed only as a leading \"*.\"", raw)
	}
	return o, nil
}

func originOf(u *url.URL) (origin, error) {
	o := origin{scheme: strings.ToLower(u.Scheme), host: strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")), port: u.Port()}
	switch {
	case o.scheme == "https" && o.port == "":
		o.port = "443"
	case o.scheme == "http" && o.port == "":
		o.port = "80"
	case o.scheme != "https" && o.scheme != "http":
		return origin{}, fmt.Errorf("scheme %q is not http or https", u.Scheme)
	}
	return o, nil
}

// allows reports whether u may be fetched.
func (a allowList) allows(u *url.URL) bool {
	want, err := originOf(u)
	if err != nil {
		return false
	}
	for _, o := range a {
		if o.scheme != want.scheme || o.port != want.port {
			continue
		}
		if o.host == want.host && !o.wildcard {
			return true
		}
		if o.wildcard && strings.HasSuffix(want.host, "."+o.host) {
			return true
		}
	}
	return false
}

// String lists the entries for a refusal message.
func (a allowList) String() string {
	var parts []string
	for _, o := range a {
		h := o.host
		if o.wildcard {
			h = "*." + h
		}
		parts = append(parts, o.scheme+"://"+net.JoinHostPort(h, o.port))
	}
	return strings.Join(parts, ", ")
}
