package egress

import (
	"net/url"
	"testing"
)

func TestAllowList(t *testing.T) {
	t.Parallel()
	a, err := NewAllowList("https://api.z.ai/api/anthropic", "http://127.0.0.1:11434/v1", "*.example.com", "docs.go.dev:8443")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		url  string
		want bool
	}{
		{"https://api.z.ai/api/paas/v4", true},
		{"https://API.Z.AI:443/x", true},
		{"http://api.z.ai/x", false},
		{"https://api.z.ai:8443/x", false},
		{"https://evil.z.ai/x", false},
		{"http://127.0.0.1:11434/v1/chat/completions", true},
		{"http://127.0.0.1:11435/", false},
		{"http://localhost:11434/", false},
		{"https://a.example.com/", true},
		{"https://a.b.example.com/", true},
		{"https://example.com/", false},
		{"https://example.com.evil.net/", false},
		{"https://docs.go.dev:8443/", true},
		{"https://docs.go.dev/", false},
		{"ftp://api.z.ai/", false},
	} {
		u, _ := url.Parse(c.url)
		if got := a.Allows(u); got != c.want {
			t.Errorf("Allows(%s) = %v, want %v", c.url, got, c.want)
		}
	}
	if _, err := NewAllowList("https://a.*.com"); err == nil {
		t.Error("a wildcard in the middle was accepted")
	}
}
