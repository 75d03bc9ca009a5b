package config

import (
	"errors"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

var hostLabel = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?$`)

// checkBaseURL accepts an absolute http(s) URL with a host and without user
// information: a key belongs in credential, never in a URL.
func checkBaseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, errors.New("not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errors.New("the scheme must be https:// (or http:// for a local server)")
	case u.Host == "":
		return nil, errors.New("the URL has no host")
	case u.User != nil:
		return nil, errors.New("user information in a URL is refused; put the key in credential")
	case u.Fragment != "":
		return nil, errors.New("a base URL has no #fragment")
	}
	return u, nil
}

// checkOrigin validates an egress allow entry: "https://host[:port]",
// "host", "host:port" or "*.domain".
func checkOrigin(s string) error {
	hostport := s
	if scheme, rest, ok := strings.Cut(s, "://"); ok {
		u, err := url.Parse(s)
		if err != nil || (scheme != "https" && scheme != "http") {
			return errors.New("the scheme must be https:// or http://")
		}
		if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return errors.New("an origin has no user, path, query or fragment")
		}
		hostport = strings.TrimSuffix(rest, "/")
	}
	host := hostport
	if h, port, err := net.SplitHostPort(hostport); err == nil {
		n, perr := strconv.ParseUint(port, 10, 16)
		if perr != nil || n == 0 {
			return errors.New("the port must be a number from 1 to 65535")
		}
		host = h
	}
	if ip := net.ParseIP(host); ip != nil {
		return nil
	}
	host = strings.TrimPrefix(host, "*.")
	if host == "" {
		return errors.New("the host is empty")
	}
	for _, label := range strings.Split(host, ".") {
		if !hostLabel.MatchString(label) {
			return errors.New("not a host name")
		}
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
