package sdk

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/go-hclog"
)

// Kind names what a plugin binary serves.
type Kind string

// The kinds of plugin: each binary serves exactly one.
const (
	KindProvider Kind = "provider"
	KindTool     Kind = "tool"
	KindDisplay  Kind = "display"
)

// APIVersion is the SDK API version this package speaks.
const APIVersion = "v1"

// Info is static metadata about a plugin. It must be cheap and free of side
// effects: the host calls it before Configure.
type Info struct {
	Name        string   // unique within Kind, lowercase: "anthropic"
	Kind        Kind     // set by Serve* when left empty
	Version     string   // the plugin's own version
	APIVersions []string // SDK API versions spoken; Serve* fills {APIVersion} when empty; a host refuses one without its own
	Config      Schema   // plugin-owned configuration; the host decodes HCL against it
	Auth        Auth     // where the host should put the credential by default
	// Prefill says the provider continues a trailing assistant message: a
	// Request whose last message has RoleAssistant is rendered so that the
	// upstream model carries on from that text (Anthropic Messages natively,
	// Ollama /api/chat), and the answer streamed holds only the continuation.
	// The host sends such a request only to a provider that declares it (or
	// whose config block sets prefill = true), to continue a stream another
	// provider broke off mid-answer.
	Prefill bool
	// Output says the provider renders Request.Output natively, so that
	// the upstream guarantees the answer matches a strict schema (OpenAI
	// json_schema, Anthropic output_config, Gemini responseSchema, Ollama
	// format). The chain sends a strict-schema request only to a provider
	// that declares it (or whose config block sets structured_output =
	// true); every provider must still render a non-strict Output as well
	// as its API allows, or refuse it.
	Output bool
	// InlineMedia says the provider's API takes images and documents only
	// as inline data (Ollama; Gemini, whose file URIs name its own uploads):
	// the host fetches a part given by URL, within its size limit, and
	// hands the plugin the bytes.
	InlineMedia bool
	// Options lists the Request.Options keys the provider renders on its
	// wire ("top_p", "seed", "reasoning_effort", ...). When the provider
	// that answers a client request leaves out an option the request set,
	// the host names it in the x-axon-ignored response header, so a client
	// learns that its top_k never reached that model. nil: the plugin does
	// not say, and nothing is named; empty: it renders none. The host reads
	// Options and Lacks again after Configure, so a provider may answer
	// for its configured block (an API mode that has no field for one).
	Options []string
	// Lacks names the request features the provider's wire has no place
	// for and which it leaves out rather than refuse (LackSequential,
	// LackForcedToolChoice, LackCacheBreakpoints): when it answers a
	// request that uses one, the host names the client's field in
	// x-axon-ignored. A feature it cannot leave out without changing the
	// answer's meaning is refused with Unsupportedf instead.
	Lacks []string
}

// The features an Info.Lacks may name.
const (
	// LackSequential: ToolChoice.Sequential is not sent (no switch for
	// parallel tool calls); the model may call several tools at once.
	LackSequential = "sequential"
	// LackForcedToolChoice: a required or named ToolChoice is not
	// enforced (the tools are offered, the named one alone); the model
	// decides whether to call one.
	LackForcedToolChoice = "forced_tool_choice"
	// LackCacheBreakpoints: Cache breakpoints are not sent; the provider
	// caches on its own, or not at all.
	LackCacheBreakpoints = "cache_breakpoints"
)

// Schema describes the plugin-owned attributes of a plugin's configuration
// block.
type Schema struct {
	Attributes []Attribute
}

// Attribute is one plugin-owned configuration attribute.
type Attribute struct {
	Name string
	// Type is an HCL type expression (string, number, bool, list(string),
	// list(number), map(string)), or TypePath.
	Type        string
	Required    bool
	Default     json.RawMessage // JSON literal used when the attribute is absent
	Description string
}

// TypePath is the Type of an attribute that names a file or directory. It
// arrives as a JSON string, like "string", after the host has expanded a
// leading "~/" to the user's home directory and made a relative path
// absolute against the directory of the configuration file that sets it,
// as it does for grant paths: the plugin runs sandboxed, with a home and
// working directory of its own, so it could not do either itself. An empty
// value is passed as it is.
const TypePath = "path"

// AuthScheme says how the host injects a credential into egress requests.
type AuthScheme string

const (
	AuthNone   AuthScheme = ""       // no credential
	AuthBearer AuthScheme = "bearer" // Authorization: Bearer <secret>
	AuthHeader AuthScheme = "header" // <Name>: <secret>, e.g. x-api-key
	AuthQuery  AuthScheme = "query"  // ?<Name>=<secret>, e.g. key
)

// Auth is a credential placement. It never holds the secret itself.
type Auth struct {
	Scheme AuthScheme
	Name   string // header or query parameter name for AuthHeader / AuthQuery
}

// Config is what Configure receives.
type Config struct {
	// Values holds the plugin-owned attributes as a JSON object, already
	// type-checked against Info.Config and with defaults applied.
	Values json.RawMessage
	// Egress is the plugin's only network path. It is nil for plugins
	// configured without one (for example in unit tests).
	Egress Egress
	// Proxy is the URL of the HTTPS proxy the host offers this plugin
	// process and its children ("http://127.0.0.1:PORT", for HTTPS_PROXY),
	// or "" when its block does not enable one (egress { proxy = true }).
	// It takes CONNECT host:port only; the host checks each host against
	// the block's allow list and tunnels the bytes untouched: it sees
	// nothing inside the TLS and injects no credential.
	Proxy string
	// Logger writes to the host's log under this plugin instance's name.
	Logger hclog.Logger
}

// Decode unmarshals the plugin-owned values into v.
func (c Config) Decode(v any) error {
	if len(c.Values) == 0 {
		return nil
	}
	if err := json.Unmarshal(c.Values, v); err != nil {
		return Permanentf("decode plugin config: %v", err)
	}
	return nil
}

// Plugin is what every kind shares.
type Plugin interface {
	Info() Info
	// Configure is called once per process before any other call.
	Configure(ctx context.Context, cfg Config) error
}

// Closer is implemented by plugins that hold resources; Serve calls Close
// when the host shuts the plugin down.
type Closer interface {
	Close() error
}
