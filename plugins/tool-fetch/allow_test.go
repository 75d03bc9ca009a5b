package main

import (
	"net/url"
	"testing"
)

func TestAllowList(t *testing.T) {
	t.Parallel()
	a, err := parseAllowList([]string{
		"docs.example.com",          // https only, port 443
		"http://10.0.0.5:8080",      // exactly this origin
		"https://API.Example.org/",  // case and trailing slash ignored
		"*.wiki.example.net",        // subdomains, not the apex
		"localhost:8443",            // https on 8443
		"http://[::1]:9000",         // IPv6 literal
		"https://exact.example.com", // does not grant its subdomains
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		url  string
		want bool
	}{
		{"https://docs.example.com/a/b?q=1", true},
		{"https://docs.example.com:443/", true},
		{"https://DOCS.example.com./", true},
		{"http://docs.example.com/", false},
		{"https://docs.example.com:8443/", false},
		{"https://evil-docs.example.com/", false},
		{"https://docs.example.com.evil.com/", false},
		{"http://10.0.0.5:8080/status", true},
		{"http://10.0.0.5/", false},
		{"https://api.example.org/v1", true},
		{"https://en.wiki.example.net/Go", true},
		{"https://a.b.wiki.example.net/", true},
		{"https://wiki.example.net/", false},
		{"https://xwiki.example.net/", false},
		{"https://localhost:8443/", true},
		{"https://localhost/", false},
		{"http://[::1]:9000/x", true},
		{"https://sub.exact.example.com/", false},
		{"ftp://docs.example.com/", false},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.allows(u); got != tt.want {
			t.Errorf("allows(%s) = %v, want %v", tt.url, got, tt.want)
		}
	}
}

func TestAllowEntryRefused(t *testing.T) {
	t.Parallel()
	for _, e := range []string{
		"",
		"https://example.com/path",
		"https://example.com/?q=1",
		"https://user:pw@example.com",
		"ftp://example.com",
		"*.",
		"a.*.example.com",
		"*.*.example.com",
		"example.com:notaport",
	} {
		if _, err := parseAllowEntry(e); err == nil {
			t.Errorf("parseAllowEntry(%q) accepted it", e)
		}
	}
}
