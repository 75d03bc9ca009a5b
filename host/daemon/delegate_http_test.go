package daemon

import "testing"

// TestLoopbackHost: without a token /mcp serves a loopback Host only, the
// panel's rule: a rebound name is refused, however it is spelled.
func TestLoopbackHost(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"127.0.0.1:8080":         true,
		"127.0.0.1":              true,
		"localhost:4000":         true,
		"LOCALHOST":              true,
		"[::1]:4000":             true,
		"[::ffff:127.0.0.1]:80":  true,
		"127.9.9.9":              true,
		"evil.example":           false,
		"evil.example:4000":      false,
		"localhost.evil.example": false,
		"192.168.1.2:4000":       false,
		"":                       false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}
