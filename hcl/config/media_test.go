package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestMedia: axon { media } decodes to what host/media reads; without it,
// fetching is on with the package's default limits (zero here).
func TestMedia(t *testing.T) {
	t.Parallel()
	const chain = "provider \"l\" { preset = \"ollama\" }\nchain \"default\" { providers = [provider.l] }\n"
	if got := mustParse(t, chain).Axon.Media; !got.Fetch || got.Allow != nil || got.MaxPartBytes != 0 {
		t.Errorf("default media %+v, want fetch on and nothing else", got)
	}
	cfg := mustParse(t, `
axon {
  media {
    fetch             = false
    allow             = ["http://127.0.0.1:8080", "nas.lan:8443"]
    max_part_bytes    = 1048576
    max_request_bytes = 4194304
    timeout           = "5s"
  }
}
`+chain)
	want := Media{Allow: []string{"http://127.0.0.1:8080", "nas.lan:8443"}, MaxPartBytes: 1 << 20, MaxRequestBytes: 4 << 20, Timeout: 5 * time.Second}
	if d := cmp.Diff(want, cfg.Axon.Media, cmpopts.IgnoreFields(Media{}, "DefRange")); d != "" {
		t.Errorf("media (-want +got):\n%s", d)
	}
	for src, msg := range map[string]string{
		`allow = ["*.lan"]`:        "wildcards are not taken here",
		`allow = ["ftp://nas"]`:    "Invalid media allow entry",
		`fetch = "yes"`:            "must be true or false",
		`max_part_bytes = 0`:       "A whole number from 1",
		`timeout = "soon"`:         "is not a duration",
		`allow = ["http://a/b?c"]`: "no user, path, query or fragment",
	} {
		_, diags, _ := parse(t, "axon {\n  media { "+src+" }\n}\n"+chain)
		if !diags.HasErrors() || !strings.Contains(diags.Error(), msg) {
			t.Errorf("%s: diagnostics %q, want one saying %q", src, diags, msg)
		}
	}
}
