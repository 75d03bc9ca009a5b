package daemon

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/egress"
)

// TestGrantsCarryTheEgressLimits: every egress {} limit a block sets
// reaches the grant its plugin's egress is built from.
func TestGrantsCarryTheEgressLimits(t *testing.T) {
	t.Parallel()
	loader := config.NewLoader(config.Options{HomeDir: t.TempDir(), ExecutableDir: t.TempDir(), GOOS: "linux"})
	cfg, diags := loader.Parse("axon.hcl", []byte(`
provider "local" {
  preset = "ollama"
  egress {
    connect_timeout      = "1s"
    response_timeout     = "2s"
    total_timeout        = "3s"
    request_idle_timeout = "4s"
    max_request_bytes    = 5
    max_response_bytes   = 6
    max_concurrent       = 7
  }
}
tool "fetch" {
  egress {
    allow          = ["https://example.com"]
    max_concurrent = 2
  }
}
chain "default" { providers = [provider.local] }
`))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	type grantLimits struct {
		Connect, Response, Total, RequestIdle time.Duration
		MaxRequest, MaxResponse               int64
		MaxConcurrent                         int
	}
	limits := func(g *egress.Grant) grantLimits {
		return grantLimits{g.ConnectTimeout, g.ResponseTimeout, g.TotalTimeout, g.RequestIdleTimeout,
			g.MaxRequestBytes, g.MaxResponseBytes, g.MaxConcurrent}
	}
	pg, err := providerGrant(cfg.Providers[0])
	if err != nil {
		t.Fatal(err)
	}
	want := grantLimits{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5, 6, 7}
	if diff := cmp.Diff(want, limits(pg)); diff != "" {
		t.Errorf("provider grant (-want +got):\n%s", diff)
	}
	tg, err := toolGrant(cfg.Tools[0])
	if err != nil {
		t.Fatal(err)
	}
	want = grantLimits{config.DefaultConnectTimeout, config.DefaultResponseTimeout, config.DefaultTotalTimeout,
		config.DefaultRequestIdleTimeout, config.DefaultMaxRequestBytes, config.DefaultMaxResponseBytes, 2}
	if diff := cmp.Diff(want, limits(tg)); diff != "" {
		t.Errorf("tool grant (-want +got):\n%s", diff)
	}
}
