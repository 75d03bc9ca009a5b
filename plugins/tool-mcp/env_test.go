package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChildEnv: the server's environment is built from nothing: HOME and
// TMPDIR as the plugin has them, PATH, the host's proxy when there is one,
// then env.
func TestChildEnv(t *testing.T) {
	t.Parallel()
	getenv := func(k string) string {
		return map[string]string{"HOME": "/tmp", "TMPDIR": "/tmp", "PLUGIN_PROTOCOL_VERSIONS": "1", "AXON_TOKEN": "x"}[k]
	}
	s := &settings{path: "/usr/bin:/bin", env: map[string]string{"SSL_CERT_FILE": "/etc/ssl/ca.pem"}}
	for _, c := range []struct {
		name, proxy string
		want        []string
	}{
		{"no proxy", "", []string{"HOME=/tmp", "PATH=/usr/bin:/bin", "SSL_CERT_FILE=/etc/ssl/ca.pem", "TMPDIR=/tmp"}},
		{"proxy", "http://127.0.0.1:4000", []string{"HOME=/tmp", "HTTPS_PROXY=http://127.0.0.1:4000", "PATH=/usr/bin:/bin",
			"SSL_CERT_FILE=/etc/ssl/ca.pem", "TMPDIR=/tmp", "https_proxy=http://127.0.0.1:4000"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, s.childEnv(getenv, c.proxy)); diff != "" {
				t.Errorf("env (-want +got):\n%s", diff)
			}
		})
	}
}
