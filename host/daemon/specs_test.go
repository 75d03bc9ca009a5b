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

// TestProviderGrantCarriesTheCredential: the reference the configuration
// parsed is the one the egress resolves, unchanged, and a provider without
// one gets a grant that injects nothing.
func TestProviderGrantCarriesTheCredential(t *testing.T) {
	t.Parallel()
	loader := config.NewLoader(config.Options{HomeDir: "/home/pi", ExecutableDir: t.TempDir(), GOOS: "linux"})
	cfg, diags := loader.Parse("/etc/axon/axon.hcl", []byte(`
provider "env" {
  preset     = "openai"
  model      = "m"
  credential = env("MY_OPENAI_KEY")
}
provider "file" {
  preset     = "openai"
  model      = "m"
  credential = file("~/.config/axon/openai.key")
}
provider "preset" {
  preset = "openai"
  model  = "m"
}
provider "local" {
  preset = "ollama"
}
chain "default" { providers = [provider.env, provider.file, provider.preset, provider.local] }
`))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := map[string]string{
		"env":    "env:MY_OPENAI_KEY",
		"file":   "file:/home/pi/.config/axon/openai.key",
		"preset": "env:OPENAI_API_KEY",
		"local":  "none",
	}
	got := map[string]string{}
	for _, p := range cfg.Providers {
		g, err := providerGrant(p)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if g.Credential != p.Credential {
			t.Errorf("%s: grant credential %v, configured %v", p.Name, g.Credential, p.Credential)
		}
		got[p.Name] = g.Credential.String()
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("grant credentials (-want +got):\n%s", diff)
	}
}
