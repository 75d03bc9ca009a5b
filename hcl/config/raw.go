package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
)

// The raw* structs are the host-owned HCL schema, decoded with gohcl. Every
// attribute is kept as an expression so that decode.go can evaluate it with
// the file's functions and point a diagnostic at its value; the plugin-owned
// rest of a block lands in Remain.

type rawFile struct {
	Axon      *rawAxon       `hcl:"axon,block"`
	Providers []*rawProvider `hcl:"provider,block"`
	Chains    []*rawChain    `hcl:"chain,block"`
	Tools     []*rawTool     `hcl:"tool,block"`
	Displays  []*rawDisplay  `hcl:"display,block"`
	Vault     *rawVault      `hcl:"vault,block"`
}

type rawAxon struct {
	Listen     hcl.Expression `hcl:"listen,optional"`
	UnixSocket hcl.Expression `hcl:"unix_socket,optional"`
	StateDir   hcl.Expression `hcl:"state_dir,optional"`
	PluginDir  hcl.Expression `hcl:"plugin_dir,optional"`
	Sandbox    hcl.Expression `hcl:"sandbox,optional"`
	TokenFile  hcl.Expression `hcl:"token_file,optional"`
	PluginIDs  hcl.Expression `hcl:"plugin_ids,optional"`
	IdleStop   hcl.Expression `hcl:"idle_stop,optional"`
	MaxProcs   hcl.Expression `hcl:"max_procs,optional"`
	DefRange   hcl.Range      `hcl:",def_range"`

	ReferencePricing *rawReference `hcl:"reference_pricing,block"`
	Billing          *rawBilling   `hcl:"billing,block"`
	Archive          *rawArchive   `hcl:"archive,block"`
	Media            *rawMedia     `hcl:"media,block"`
	Responses        *rawResponses `hcl:"responses,block"`
}

type rawProvider struct {
	Name             string         `hcl:"name,label"`
	Plugin           hcl.Expression `hcl:"plugin,optional"`
	Preset           hcl.Expression `hcl:"preset,optional"`
	Credential       hcl.Expression `hcl:"credential,optional"`
	Tier             hcl.Expression `hcl:"tier,optional"`
	GoodAt           hcl.Expression `hcl:"good_at,optional"`
	ContextWindow    hcl.Expression `hcl:"context_window,optional"`
	Prefill          hcl.Expression `hcl:"prefill,optional"`
	StructuredOutput hcl.Expression `hcl:"structured_output,optional"`
	SHA256           hcl.Expression `hcl:"sha256,optional"`
	Sandbox          hcl.Expression `hcl:"sandbox,optional"`
	IdleStop         hcl.Expression `hcl:"idle_stop,optional"`
	MaxProcs         hcl.Expression `hcl:"max_procs,optional"`
	Home             hcl.Expression `hcl:"home,optional"`
	Enabled          hcl.Expression `hcl:"enabled,optional"`
	CanDelegate      hcl.Expression `hcl:"can_delegate,optional"`
	Budget           *rawBudget     `hcl:"budget,block"`
	Auth             *rawAuth       `hcl:"auth,block"`
	Pricing          *rawPricing    `hcl:"pricing,block"`
	Egress           *rawEgress     `hcl:"egress,block"`
	Timeouts         *rawTimeouts   `hcl:"timeouts,block"`
	Grant            *rawGrant      `hcl:"grant,block"`
	Remain           hcl.Body       `hcl:",remain"`
	DefRange         hcl.Range      `hcl:",def_range"`
	NameRange        hcl.Range      `hcl:"name,label_range"`
}

type rawAuth struct {
	Scheme   hcl.Expression `hcl:"scheme"`
	Name     hcl.Expression `hcl:"name,optional"`
	Origins  hcl.Expression `hcl:"origins,optional"`
	DefRange hcl.Range      `hcl:",def_range"`
}

type rawPricing struct {
	Input      hcl.Expression `hcl:"input_per_mtok,optional"`
	Output     hcl.Expression `hcl:"output_per_mtok,optional"`
	CacheRead  hcl.Expression `hcl:"cache_read_per_mtok,optional"`
	CacheWrite hcl.Expression `hcl:"cache_write_per_mtok,optional"`
}

type rawEgress struct {
	Allow              hcl.Expression `hcl:"allow,optional"`
	ConnectTimeout     hcl.Expression `hcl:"connect_timeout,optional"`
	ResponseTimeout    hcl.Expression `hcl:"response_timeout,optional"`
	TotalTimeout       hcl.Expression `hcl:"total_timeout,optional"`
	RequestIdleTimeout hcl.Expression `hcl:"request_idle_timeout,optional"`
	MaxRequestBytes    hcl.Expression `hcl:"max_request_bytes,optional"`
	MaxResponseBytes   hcl.Expression `hcl:"max_response_bytes,optional"`
	MaxConcurrent      hcl.Expression `hcl:"max_concurrent,optional"`
	Proxy              hcl.Expression `hcl:"proxy,optional"`
	DefRange           hcl.Range      `hcl:",def_range"`
}

type rawTimeouts struct {
	FirstToken hcl.Expression `hcl:"first_token,optional"`
	Idle       hcl.Expression `hcl:"idle,optional"`
}

type rawChain struct {
	Name                       string         `hcl:"name,label"`
	Providers                  hcl.Expression `hcl:"providers"`
	Retry                      *rawRetry      `hcl:"retry,block"`
	AllowContentFilterFallback hcl.Expression `hcl:"allow_content_filter_fallback,optional"`
	Strategy                   hcl.Expression `hcl:"strategy,optional"`
	Classifier                 *rawClassifier `hcl:"classifier,block"`
	DefRange                   hcl.Range      `hcl:",def_range"`
	NameRange                  hcl.Range      `hcl:"name,label_range"`
}

type rawRetry struct {
	Attempts      hcl.Expression `hcl:"attempts,optional"`
	Backoff       hcl.Expression `hcl:"backoff,optional"`
	MaxRetryAfter hcl.Expression `hcl:"max_retry_after,optional"`
}

type rawTool struct {
	Name      string         `hcl:"name,label"`
	Plugin    hcl.Expression `hcl:"plugin,optional"`
	SHA256    hcl.Expression `hcl:"sha256,optional"`
	Sandbox   hcl.Expression `hcl:"sandbox,optional"`
	IdleStop  hcl.Expression `hcl:"idle_stop,optional"`
	MaxProcs  hcl.Expression `hcl:"max_procs,optional"`
	Home      hcl.Expression `hcl:"home,optional"`
	Egress    *rawEgress     `hcl:"egress,block"`
	Grant     *rawGrant      `hcl:"grant,block"`
	Remain    hcl.Body       `hcl:",remain"`
	DefRange  hcl.Range      `hcl:",def_range"`
	NameRange hcl.Range      `hcl:"name,label_range"`
}

type rawDisplay struct {
	Name      string         `hcl:"name,label"`
	Plugin    hcl.Expression `hcl:"plugin,optional"`
	SHA256    hcl.Expression `hcl:"sha256,optional"`
	Sandbox   hcl.Expression `hcl:"sandbox,optional"`
	IdleStop  hcl.Expression `hcl:"idle_stop,optional"`
	MaxProcs  hcl.Expression `hcl:"max_procs,optional"`
	Grant     *rawGrant      `hcl:"grant,block"`
	Remain    hcl.Body       `hcl:",remain"`
	DefRange  hcl.Range      `hcl:",def_range"`
	NameRange hcl.Range      `hcl:"name,label_range"`
}

type rawVault struct {
	Dir      hcl.Expression `hcl:"dir"`
	DefRange hcl.Range      `hcl:",def_range"`
}

// hostNames is the set of attribute and block names the host owns in one
// kind of plugin block; everything else in the block belongs to the plugin.
type hostNames struct {
	attrs  []string
	blocks []string
}

func namesOf(v any) hostNames {
	schema, _ := gohcl.ImpliedBodySchema(v)
	var n hostNames
	for _, a := range schema.Attributes {
		n.attrs = append(n.attrs, a.Name)
	}
	for _, b := range schema.Blocks {
		n.blocks = append(n.blocks, b.Type)
	}
	return n
}
