package sdk

import (
	"net/http"
	"net/url"
	"strings"
)

// credentialHeaders carry credentials in the APIs providers serve.
// Credentials are never plugin configuration: the host injects them.
var credentialHeaders = [...]string{"Authorization", "Proxy-Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key"}

// ParseBaseURL checks a configured API root and returns it without a
// trailing slash, ready for paths to be appended: an absolute http or
// https URL with no query, fragment or user info (a credential in a URL is
// still a credential).
func ParseBaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", Permanentf("base_url %q: want an absolute http or https URL", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", Permanentf("base_url %q: must not carry a query, fragment or user info", raw)
	}
	return strings.TrimRight(raw, "/"), nil
}

// ExtraHeaders checks the configured extra request headers and returns
// them as an http.Header for Endpoint.Header. It refuses the headers that
// carry credentials, and those in reserved: headers the plugin sets from
// an attribute of their own. No headers is a nil Header.
func ExtraHeaders(h map[string]string, reserved ...string) (http.Header, error) {
	if len(h) == 0 {
		return nil, nil
	}
	out := make(http.Header, len(h))
	for name, v := range h {
		canon := http.CanonicalHeaderKey(name)
		for _, c := range credentialHeaders {
			if canon == c {
				return nil, Permanentf("headers: %q may not be set here: the host injects the credential", name)
			}
		}
		for _, r := range reserved {
			if canon == http.CanonicalHeaderKey(r) {
				return nil, Permanentf("headers: %q may not be set here", name)
			}
		}
		out.Set(name, v)
	}
	return out, nil
}
