package config

import (
	"time"

	"github.com/axonhq/axon/hcl/credref"
	"github.com/axonhq/axon/sdk"
	"github.com/hashicorp/hcl/v2"
)

// Config is a loaded, validated axon.hcl with every default applied.
type Config struct {
	Source    Source
	Axon      Axon
	Providers []*Provider
	Chains    []*Chain
	Tools     []*Tool
	Displays  []*Display
	Vault     *Vault // nil when the file has no vault block
}

// Axon holds the host's own settings.
type Axon struct {
	Listen     string // host:port of the HTTP front door
	UnixSocket string // optional extra listener; "" for none
	StateDir   string // sessions, usage, the bearer token
	PluginDir  string // where axon-<kind>-<name> binaries live
	Sandbox    Sandbox
	TokenFile  string        // bearer token required for non-loopback listeners
	PluginIDs  IDRange       // host ids a root host gives sandboxed plugins
	IdleStop   time.Duration // the idle_stop of provider and tool blocks that set none (not displays); 0: never
	MaxProcs   int           // the max_procs of plugin blocks that set none; DefaultMaxProcs unless set
	DefRange   hcl.Range     // zero when the file has no axon block

	ReferencePricing Reference // what usage facts measure cost avoided against
	Billing          Billing   // the paid gate: whether api-tier providers may be routed at all
	Archive          Archive   // the schedule that archives old session logs; zero: none
	Media            Media     // fetching image and document URLs for providers that take only inline data
	Responses        Responses // how long the Responses API's stored responses are kept
}

// Sandbox is how a plugin process is isolated.
type Sandbox string

const (
	// SandboxFull runs the plugin in its own jail (Linux only): user, PID,
	// mount, network, IPC and UTS namespaces, a minimal read-only file view
	// plus the block's grants, no capabilities, seccomp. It can reach
	// nothing but its go-plugin socket and the host's egress.
	SandboxFull Sandbox = "full"
	// SandboxNone runs the plugin as a plain child of the host: the
	// explicit opt-out.
	SandboxNone Sandbox = "none"
)

// Tier says how a provider is paid for: routing sends a request to an api
// tier only behind the paid gate (Config.Gate).
type Tier string

const (
	TierUnset Tier = ""
	TierLocal Tier = "local" // runs on this machine or LAN, free
	TierSub   Tier = "sub"   // flat-rate subscription
	TierAPI   Tier = "api"   // metered per token
)

// PluginBlock is what every plugin-backed block (provider, tool, display)
// shares.
type PluginBlock struct {
	Kind    sdk.Kind
	Name    string // the block label, unique within Kind
	Plugin  string // plugin name: binary axon-<Kind>-<Plugin>
	SHA256  string // pinned binary hash, lower-case hex; "" when not pinned here
	Sandbox Sandbox
	Grants  []Grant // host paths and devices shown inside the sandbox
	// Home is the plugin process's HOME, absolute: the directory where a
	// vendor's command-line client keeps its own login (plugin "cli"). It
	// is always among Grants, read-write. "" when neither the block nor its
	// preset sets home; displays never have one.
	Home string
	// HomeRange is where home is written: the home attribute, or DefRange
	// when it comes from the preset.
	HomeRange hcl.Range
	// IdleStop stops the plugin's process after this long without a call;
	// zero never does. The block's idle_stop, else (providers and tools)
	// the axon block's.
	IdleStop time.Duration
	// MaxProcs is the plugin process's GOMAXPROCS: how many threads run
	// its Go code at once. The block's max_procs, else the axon block's,
	// else DefaultMaxProcs; 0 leaves it to the Go runtime (every CPU).
	MaxProcs int

	// Body holds the plugin-owned attributes exactly as written, to be
	// decoded against the plugin's schema by DecodePluginBody.
	Body     hcl.Body
	DefRange hcl.Range
	// PluginRange is where the plugin name is written: the plugin
	// attribute, or DefRange when the name comes from the label or a preset.
	PluginRange hcl.Range

	preset    *Preset          // providers only: fills plugin-owned attributes the body omits
	ctx       *hcl.EvalContext // env() and file(), relative to the block's file
	dir, home string           // the block's file's directory and ~, for sdk.TypePath values
}

// Binary is the plugin's executable name, e.g. "axon-provider-anthropic".
func (b *PluginBlock) Binary() string { return BinaryName(b.Kind, b.Plugin) }

// Provider is a provider block.
type Provider struct {
	PluginBlock
	Preset     string      // preset name, "" when none
	Credential credref.Ref // zero when the provider needs none
	// CredentialRange is where the credential is written: the credential
	// attribute, or DefRange when it comes from the preset's key_env.
	CredentialRange hcl.Range
	Auth            *sdk.Auth // nil: the plugin's declared placement, if that is bearer
	AuthOrigins     []string  // besides base_url, the origins the credential is sent to (auth { origins })
	Tier            Tier
	GoodAt          []string
	ContextWindow   int // tokens; 0 when unknown
	// Prefill, when not nil, overrides the plugin's Info.Prefill: whether
	// the provider may be sent a trailing assistant message to continue a
	// stream another provider broke off.
	Prefill *bool
	// StructuredOutput, when not nil, overrides the plugin's Info.Output:
	// whether the provider's upstream guarantees a strict response schema,
	// so a chain may send it a request whose schema is strict.
	StructuredOutput *bool
	Pricing          Pricing
	Egress           Egress
	Timeouts         Timeouts
	// Enabled is the block's enabled: nil when not written. false keeps
	// routing from the provider; an api tier needs true (Config.Gate).
	Enabled *bool
	Budget  *Budget // nil: no monthly budget
	// CanDelegate offers the provider to an orchestrating agent through
	// axon's MCP delegate server (axon mcp, /mcp): false unless written.
	CanDelegate bool
	// CanDelegateRange is where can_delegate is written; zero when absent.
	CanDelegateRange hcl.Range

	baseURL string
	model   string
}

// BaseURL is the provider's base_url, from the block or its preset, without
// decoding the plugin-owned body. It is "" when neither sets it; the plugin's
// own default then applies and is visible in DecodePluginBody's output.
func (p *Provider) BaseURL() string { return p.baseURL }

// Model is the provider's model, from the block or its preset; "" when
// neither sets it.
func (p *Provider) Model() string { return p.model }

// Pricing is USD per million tokens. A nil field is unknown, never zero.
type Pricing struct {
	InputPerMTok      *float64
	OutputPerMTok     *float64
	CacheReadPerMTok  *float64
	CacheWritePerMTok *float64
}

// Egress bounds what a plugin may reach through the host, and how much of
// it one request may take. Every limit ends the request with a classified
// error, never a hang.
type Egress struct {
	// Allow lists extra origins beyond the provider's base_url:
	// "https://host", "host", "host:port" or "*.example.com". A loopback,
	// link-local or private address is reached only through an entry
	// written as that IP or as localhost, never through a name.
	Allow              []string
	ConnectTimeout     time.Duration // TCP and TLS
	ResponseTimeout    time.Duration // end of the request body → response headers
	TotalTimeout       time.Duration // whole request, response stream included
	RequestIdleTimeout time.Duration // longest wait for the plugin's next request body bytes
	MaxRequestBytes    int64
	MaxResponseBytes   int64
	MaxConcurrent      int // requests in flight per plugin instance; more are refused at once (transient)
	// Proxy offers the plugin process, and the children it starts, an
	// HTTPS proxy (CONNECT only) to what its requests may reach (a
	// provider's base_url origin and Allow), for a program that opens its
	// own connections instead of asking the host's egress: a vendor's
	// command-line client. The host tunnels the TLS untouched and
	// injects no credential. True by default for a provider whose plugin is
	// "cli", false otherwise (egress { proxy = true|false }).
	Proxy bool
}

// Timeouts bound a streamed generation.
type Timeouts struct {
	FirstToken time.Duration // request sent → first content byte
	Idle       time.Duration // longest silence mid-stream
}

// Chain is an ordered list of providers tried one at a time.
type Chain struct {
	Name                       string
	Providers                  []string    // provider block names, in order
	ProviderRanges             []hcl.Range // where each entry is written
	Retry                      Retry
	AllowContentFilterFallback bool
	Strategy                   Strategy    // how each request orders the providers; StrategyOrdered by default
	Classifier                 *Classifier // nil: no classifier gate (the default)
	DefRange                   hcl.Range
}

// Retry is the per-provider retry policy for transient failures.
type Retry struct {
	Attempts      int           // tries per provider, including the first
	Backoff       time.Duration // wait before a retry without Retry-After
	MaxRetryAfter time.Duration // cap on an honoured Retry-After
}

// Tool is a tool block.
type Tool struct {
	PluginBlock
	Egress Egress
}

// Display is a display block.
type Display struct {
	PluginBlock
}

// Vault is the owner's secret directory, read later by a recall tool.
type Vault struct {
	Dir      string
	DefRange hcl.Range
}

// Provider returns the provider block named name, or nil.
func (c *Config) Provider(name string) *Provider {
	for _, p := range c.Providers {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Chain returns the chain named name, or nil.
func (c *Config) Chain(name string) *Chain {
	for _, ch := range c.Chains {
		if ch.Name == name {
			return ch
		}
	}
	return nil
}

// EgressOf returns the egress of a provider or tool block; false for a
// display, which has none.
func (c *Config) EgressOf(b *PluginBlock) (Egress, bool) {
	for _, p := range c.Providers {
		if &p.PluginBlock == b {
			return p.Egress, true
		}
	}
	for _, t := range c.Tools {
		if &t.PluginBlock == b {
			return t.Egress, true
		}
	}
	return Egress{}, false
}

// PluginBlocks lists every plugin-backed block: providers, tools, displays.
func (c *Config) PluginBlocks() []*PluginBlock {
	var out []*PluginBlock
	for _, p := range c.Providers {
		out = append(out, &p.PluginBlock)
	}
	for _, t := range c.Tools {
		out = append(out, &t.PluginBlock)
	}
	for _, d := range c.Displays {
		out = append(out, &d.PluginBlock)
	}
	return out
}
