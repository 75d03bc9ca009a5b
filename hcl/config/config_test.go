package config

import (
	"testing"
	"time"

	"github.com/axonhq/axon/hcl/credref"
	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// ignoreSource drops what cmp cannot or need not compare: HCL bodies,
// ranges and unexported plumbing.
var ignoreSource = cmp.Options{
	cmpopts.IgnoreFields(PluginBlock{}, "Body", "DefRange", "PluginRange"),
	cmpopts.IgnoreFields(Provider{}, "CredentialRange"),
	cmpopts.IgnoreFields(Chain{}, "ProviderRanges", "DefRange"),
	cmpopts.IgnoreFields(Axon{}, "DefRange"),
	cmpopts.IgnoreFields(Billing{}, "DefRange"),
	cmpopts.IgnoreFields(Budget{}, "DefRange"),
	cmpopts.IgnoreFields(Vault{}, "DefRange"),
	cmpopts.IgnoreUnexported(Provider{}, PluginBlock{}),
	cmp.Comparer(func(a, b credref.Ref) bool { return a == b }),
	cmpopts.EquateEmpty(),
}

func ptr[T any](v T) *T { return &v }

func defaultEgress() Egress {
	return Egress{
		ConnectTimeout: DefaultConnectTimeout, ResponseTimeout: DefaultResponseTimeout, TotalTimeout: DefaultTotalTimeout,
		RequestIdleTimeout: DefaultRequestIdleTimeout, MaxRequestBytes: DefaultMaxRequestBytes,
		MaxResponseBytes: DefaultMaxResponseBytes, MaxConcurrent: DefaultMaxConcurrent,
	}
}

func egressWith(f func(*Egress)) Egress {
	e := defaultEgress()
	f(&e)
	return e
}

func defaultRetry() Retry {
	return Retry{Attempts: DefaultRetryAttempts, Backoff: DefaultRetryBackoff, MaxRetryAfter: DefaultMaxRetryAfter}
}

func TestLoadMinimalAppliesDefaults(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, `
provider "local" {
  preset = "ollama"
}
chain "default" {
  providers = [provider.local]
}
`)
	want := &Config{
		Source: Source{Kind: SourceText, Path: "/etc/axon/axon.hcl"},
		Axon: Axon{
			Listen:    DefaultListen,
			StateDir:  "/home/pi/.local/state/axon",
			PluginDir: "/opt/axon/bin",
			Sandbox:   SandboxFull,
			TokenFile: "/home/pi/.local/state/axon/token",
			PluginIDs: DefaultPluginIDs,
			MaxProcs:  DefaultMaxProcs,
			Media:     Media{Fetch: true},
		},
		Providers: []*Provider{{
			PluginBlock: PluginBlock{Kind: sdk.KindProvider, Name: "local", Plugin: "openai", Sandbox: SandboxFull, MaxProcs: DefaultMaxProcs},
			Preset:      "ollama",
			Auth:        &sdk.Auth{Scheme: sdk.AuthNone},
			Tier:        TierLocal,
			Egress:      egressWith(func(e *Egress) { e.ResponseTimeout = 3 * time.Minute }),
			Timeouts:    Timeouts{FirstToken: 3 * time.Minute, Idle: DefaultIdle},
		}},
		Chains: []*Chain{{Name: "default", Providers: []string{"local"}, Retry: defaultRetry(), Strategy: StrategyOrdered}},
	}
	if diff := cmp.Diff(want, cfg, ignoreSource); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	p := cfg.Provider("local")
	if got, want := p.BaseURL(), "http://127.0.0.1:11434/v1"; got != want {
		t.Errorf("BaseURL = %q, want %q", got, want)
	}
	if got, want := p.Model(), "qwen2.5:3b"; got != want {
		t.Errorf("Model = %q, want %q", got, want)
	}
	if got, want := cfg.PluginPath(&p.PluginBlock), "/opt/axon/bin/axon-provider-openai"; got != want {
		t.Errorf("PluginPath = %q, want %q", got, want)
	}
}

func TestLoadEveryHostAttribute(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, `
axon {
  listen      = "0.0.0.0:8080"
  unix_socket = "run/axon.sock"
  state_dir   = "~/axon-state"
  plugin_dir  = "/usr/lib/axon"
  sandbox     = "none"
  token_file  = "/etc/axon/token"
  plugin_ids  = "2000000-2000099"
  max_procs   = 2
  billing { enabled = true }
}

provider "glm" {
  plugin         = "anthropic"
  base_url       = "https://api.z.ai/api/anthropic"
  model          = "glm-4.6"
  credential     = file("~/.config/axon/zai.key")
  tier           = "sub"
  good_at        = ["chat", "code"]
  context_window = 128000
  sha256         = "9C8F5E8E7D2C2F0E3B1B7A4F0F5D6C1B2A3948576655443322110099887766AA"
  sandbox        = "full"
  max_procs      = 0
  max_tokens     = 4096
  enabled        = true

  budget { usd_per_month = 20 }

  auth {
    scheme = "query"
    name   = "key"
  }
  pricing {
    input_per_mtok       = 0.6
    output_per_mtok      = 2.2
    cache_read_per_mtok  = 0.11
    cache_write_per_mtok = 0
  }
  egress {
    allow                = ["https://cdn.z.ai", "*.z.ai", "10.0.0.1:8443"]
    connect_timeout      = "3s"
    response_timeout     = "90s"
    total_timeout        = "15m"
    request_idle_timeout = "5s"
    max_request_bytes    = 2097152
    max_response_bytes   = 1048576
    max_concurrent       = 4
  }
  timeouts {
    first_token = "20s"
    idle        = "5s"
  }
}

chain "default" {
  providers = [provider.glm, "glm2"]
  retry {
    attempts        = 3
    backoff         = "0s"
    max_retry_after = "1m"
  }
  allow_content_filter_fallback = true
  strategy                      = "rotate"
}

provider "glm2" {
  preset = "glm"
}

tool "search" {
  plugin = "web-search"
  sha256 = "00000000000000000000000000000000000000000000000000000000000000ff"
  egress {
    allow = ["api.search.example"]
  }
  results = 5
}

display "epd" {
  sandbox = "none"
  rotate  = true

  grant {
    devices    = ["/dev/spidev0.0", "/dev/gpiochip0"]
    read_only  = ["/sys/firmware/devicetree/base"]
    read_write = ["faces"]
  }
}

vault {
  dir = "vault"
}
`)
	want := &Config{
		Source: Source{Kind: SourceText, Path: "/etc/axon/axon.hcl"},
		Axon: Axon{
			Listen:     "0.0.0.0:8080",
			UnixSocket: "/etc/axon/run/axon.sock",
			StateDir:   "/home/pi/axon-state",
			PluginDir:  "/usr/lib/axon",
			Sandbox:    SandboxNone,
			TokenFile:  "/etc/axon/token",
			PluginIDs:  IDRange{First: 2000000, Count: 100},
			MaxProcs:   2,
			Billing:    Billing{Enabled: true},
			Media:      Media{Fetch: true},
		},
		Providers: []*Provider{
			{
				PluginBlock: PluginBlock{
					Kind: sdk.KindProvider, Name: "glm", Plugin: "anthropic", Sandbox: SandboxFull,
					SHA256: "9c8f5e8e7d2c2f0e3b1b7a4f0f5d6c1b2a3948576655443322110099887766aa",
				},
				Credential:    credref.MustParse("file:/home/pi/.config/axon/zai.key"),
				Auth:          &sdk.Auth{Scheme: sdk.AuthQuery, Name: "key"},
				Tier:          TierSub,
				GoodAt:        []string{"chat", "code"},
				ContextWindow: 128000,
				Enabled:       ptr(true),
				Budget:        &Budget{USDPerMonth: 20},
				Pricing: Pricing{
					InputPerMTok: ptr(0.6), OutputPerMTok: ptr(2.2), CacheReadPerMTok: ptr(0.11), CacheWritePerMTok: ptr(0.0),
				},
				Egress: Egress{
					Allow:          []string{"https://cdn.z.ai", "*.z.ai", "10.0.0.1:8443"},
					ConnectTimeout: 3 * time.Second, ResponseTimeout: 90 * time.Second, TotalTimeout: 15 * time.Minute,
					RequestIdleTimeout: 5 * time.Second, MaxRequestBytes: 2 << 20, MaxResponseBytes: 1 << 20, MaxConcurrent: 4,
				},
				Timeouts: Timeouts{FirstToken: 20 * time.Second, Idle: 5 * time.Second},
			},
			{
				PluginBlock: PluginBlock{Kind: sdk.KindProvider, Name: "glm2", Plugin: "anthropic", Sandbox: SandboxNone, MaxProcs: 2},
				Preset:      "glm",
				Credential:  credref.MustParse("env:ZAI_API_KEY"),
				Auth:        &sdk.Auth{Scheme: sdk.AuthBearer},
				Egress:      defaultEgress(),
				Timeouts:    Timeouts{FirstToken: DefaultHostedFirstToken, Idle: DefaultIdle}, // a hosted preset,
			},
		},
		Chains: []*Chain{{
			Name: "default", Providers: []string{"glm", "glm2"},
			Retry:                      Retry{Attempts: 3, Backoff: 0, MaxRetryAfter: time.Minute},
			AllowContentFilterFallback: true,
			Strategy:                   StrategyRotate,
		}},
		Tools: []*Tool{{
			PluginBlock: PluginBlock{
				Kind: sdk.KindTool, Name: "search", Plugin: "web-search", Sandbox: SandboxNone, MaxProcs: 2,
				SHA256: "00000000000000000000000000000000000000000000000000000000000000ff",
			},
			Egress: egressWith(func(e *Egress) { e.Allow = []string{"api.search.example"} }),
		}},
		Displays: []*Display{{PluginBlock: PluginBlock{Kind: sdk.KindDisplay, Name: "epd", Plugin: "epd", Sandbox: SandboxNone, MaxProcs: 2,
			Grants: []Grant{{Path: "/sys/firmware/devicetree/base", Mode: "ro"}, {Path: "/etc/axon/faces", Mode: "rw"}, {Path: "/dev/spidev0.0", Mode: "dev"}, {Path: "/dev/gpiochip0", Mode: "dev"}}}}},
		Vault: &Vault{Dir: "/etc/axon/vault"},
	}
	if diff := cmp.Diff(want, cfg, ignoreSource); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if got := cfg.Provider("glm").BaseURL(); got != "https://api.z.ai/api/anthropic" {
		t.Errorf("BaseURL = %q", got)
	}
	if got := cfg.Provider("glm2").Model(); got != "" {
		t.Errorf("glm2 Model = %q, want none (the glm preset has no default model)", got)
	}
	if cfg.Chain("nope") != nil || cfg.Provider("nope") != nil {
		t.Error("lookup of an unknown name returned a block")
	}
	var binaries []string
	for _, b := range cfg.PluginBlocks() {
		binaries = append(binaries, b.Binary())
	}
	wantBinaries := []string{"axon-provider-anthropic", "axon-provider-anthropic", "axon-tool-web-search", "axon-display-epd"}
	if diff := cmp.Diff(wantBinaries, binaries); diff != "" {
		t.Errorf("plugin binaries (-want +got):\n%s", diff)
	}
}

func TestSandboxDefaultsByOS(t *testing.T) {
	t.Parallel()
	src := []byte("provider \"l\" {\n  preset = \"ollama\"\n}\nchain \"default\" {\n  providers = [provider.l]\n}\n")
	tests := []struct {
		goos string
		want Sandbox
	}{
		{"linux", SandboxFull},
		{"darwin", SandboxNone},
		{"windows", SandboxNone},
	}
	for _, tc := range tests {
		opts := testOptions(nil)
		opts.GOOS = tc.goos
		cfg, diags := NewLoader(opts).Parse("axon.hcl", src)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", tc.goos, summaries(diags))
		}
		if cfg.Axon.Sandbox != tc.want || cfg.Providers[0].Sandbox != tc.want {
			t.Errorf("%s: sandbox = %q/%q, want %q", tc.goos, cfg.Axon.Sandbox, cfg.Providers[0].Sandbox, tc.want)
		}
	}

	opts := testOptions(nil)
	opts.GOOS = "darwin"
	_, diags := NewLoader(opts).Parse("axon.hcl", []byte("axon {\n  sandbox = \"netns\"\n}\n"))
	want := []string{`warning: sandbox = "netns" is now "full" @axon.hcl:2:13`, "error: Sandbox not available @axon.hcl:2:13", "error: No chain @axon.hcl:1:1"}
	if diff := cmp.Diff(want, summaries(diags)); diff != "" {
		t.Errorf("netns on darwin (-want +got):\n%s", diff)
	}
}

func TestDefaultsWithoutHome(t *testing.T) {
	t.Parallel()
	cfg, diags := NewLoader(Options{GOOS: "linux"}).Parse("axon.hcl", defaultHCL)
	if diags.HasErrors() {
		t.Fatal(summaries(diags))
	}
	want := Axon{Listen: DefaultListen, StateDir: "/var/lib/axon", PluginDir: "/var/lib/axon/plugins", Sandbox: SandboxFull, TokenFile: "/var/lib/axon/token", PluginIDs: DefaultPluginIDs, MaxProcs: DefaultMaxProcs, Media: Media{Fetch: true}}
	if diff := cmp.Diff(want, cfg.Axon, ignoreSource); diff != "" {
		t.Errorf("axon (-want +got):\n%s", diff)
	}
}

// TestMaxProcs: every plugin block runs with DefaultMaxProcs unless the
// axon block or its own block says otherwise (0: the Go default, every
// CPU); a value that is not a whole number from 0 to 1024 is an error.
func TestMaxProcs(t *testing.T) {
	t.Parallel()
	procsOf := func(cfg *Config) map[string]int {
		got := map[string]int{}
		for _, b := range cfg.PluginBlocks() {
			got[string(b.Kind)+"."+b.Name] = b.MaxProcs
		}
		return got
	}
	const blocks = `
provider "a" { preset = "ollama" }
provider "b" {
  preset    = "ollama"
  max_procs = 4
}
chain "default" { providers = [provider.a, provider.b] }
tool "clock" { max_procs = 0 }
display "face" {}
`
	if diff := cmp.Diff(map[string]int{"provider.a": 1, "provider.b": 4, "tool.clock": 0, "display.face": 1}, procsOf(mustParse(t, blocks))); diff != "" {
		t.Errorf("default max_procs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"provider.a": 2, "provider.b": 4, "tool.clock": 0, "display.face": 2}, procsOf(mustParse(t, "axon { max_procs = 2 }\n"+blocks))); diff != "" {
		t.Errorf("axon max_procs (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"-1", "1.5", "2000", `"two"`} {
		_, diags, _ := parse(t, "axon { max_procs = "+bad+" }\nprovider \"l\" { preset = \"ollama\" }\nchain \"default\" { providers = [provider.l] }\n")
		if !diags.HasErrors() {
			t.Errorf("max_procs = %s: no error", bad)
		}
	}
}

// TestIdleStop: the axon block's idle_stop is every provider's and tool's
// unless the block sets its own ("0s": never); a display stops only when
// its own block says so.
func TestIdleStop(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, `
axon { idle_stop = "5m" }
provider "a" { preset = "ollama" }
provider "b" {
  preset    = "ollama"
  idle_stop = "30s"
}
provider "c" {
  preset    = "ollama"
  idle_stop = "0s"
}
chain "default" { providers = [provider.a, provider.b, provider.c] }
tool "clock" {}
tool "notes" { idle_stop = "1h" }
display "face" {}
display "png" { idle_stop = "10m" }
`)
	got := map[string]time.Duration{}
	for _, b := range cfg.PluginBlocks() {
		got[string(b.Kind)+"."+b.Name] = b.IdleStop
	}
	want := map[string]time.Duration{
		"provider.a": 5 * time.Minute, "provider.b": 30 * time.Second, "provider.c": 0,
		"tool.clock": 5 * time.Minute, "tool.notes": time.Hour,
		"display.face": 0, "display.png": 10 * time.Minute,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("idle_stop (-want +got):\n%s", diff)
	}
	if cfg.Axon.IdleStop != 5*time.Minute {
		t.Errorf("axon idle_stop = %s", cfg.Axon.IdleStop)
	}

	_, diags, _ := parse(t, "axon { idle_stop = \"soon\" }\nprovider \"l\" { preset = \"ollama\" }\nchain \"default\" { providers = [provider.l] }\n")
	if diff := cmp.Diff([]string{"error: Invalid duration @/etc/axon/axon.hcl:1:20"}, summaries(diags)); diff != "" {
		t.Errorf("a bad idle_stop (-want +got):\n%s", diff)
	}
}
