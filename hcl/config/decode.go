package config

import (
	"net"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/axonhq/axon/sdk"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// decodeFile turns one parsed file into a Config. Diagnostics include
// warnings even when the Config is returned.
func (l *Loader) decodeFile(f *hcl.File, src Source) (*Config, hcl.Diagnostics) {
	var raw rawFile
	if diags := gohcl.DecodeBody(f.Body, nil, &raw); diags.HasErrors() {
		return nil, inSourceOrder(diags)
	}
	r := &reader{
		ctx:  evalContext(src.Dir(), l.opts.HomeDir),
		home: l.opts.HomeDir,
		dir:  src.Dir(),
		goos: l.goos(),
		stat: l.stat,
	}
	cfg := &Config{Source: src}
	cfg.Axon = r.axon(raw.Axon, l.opts)
	for _, p := range raw.Providers {
		cfg.Providers = append(cfg.Providers, r.provider(p, cfg.Axon))
	}
	for _, c := range raw.Chains {
		cfg.Chains = append(cfg.Chains, r.chain(c))
	}
	for _, t := range raw.Tools {
		cfg.Tools = append(cfg.Tools, r.tool(t, cfg.Axon))
	}
	for _, d := range raw.Displays {
		cfg.Displays = append(cfg.Displays, r.display(d, cfg.Axon))
	}
	if raw.Vault != nil {
		cfg.Vault = r.vault(raw.Vault)
	}
	r.validate(cfg, f.Body)
	if r.diags.HasErrors() {
		return nil, r.diags
	}
	return cfg, r.diags
}

func (r *reader) axon(raw *rawAxon, opts Options) Axon {
	a := Axon{Listen: DefaultListen, Sandbox: SandboxNone, PluginIDs: DefaultPluginIDs, MaxProcs: DefaultMaxProcs}
	if r.goos == "linux" {
		a.Sandbox = SandboxFull
	}
	if opts.HomeDir != "" {
		a.StateDir = filepath.Join(opts.HomeDir, ".local", "state", "axon")
	} else {
		a.StateDir = "/var/lib/axon"
	}
	a.PluginDir = opts.ExecutableDir
	if raw != nil {
		a.DefRange = raw.DefRange
		if s, ok := r.str(raw.Listen, "listen"); ok && r.listenAddr(s, raw.Listen.Range()) {
			a.Listen = s
		}
		if p, ok := r.path(raw.UnixSocket, "unix_socket"); ok {
			a.UnixSocket = p
		}
		if p, ok := r.path(raw.StateDir, "state_dir"); ok {
			a.StateDir = p
		}
		if p, ok := r.path(raw.PluginDir, "plugin_dir"); ok {
			a.PluginDir = p
		}
		if s, ok := r.sandbox(raw.Sandbox); ok {
			a.Sandbox = s
		}
		if p, ok := r.path(raw.TokenFile, "token_file"); ok {
			a.TokenFile = p
		}
		if ids, ok := r.pluginIDs(raw.PluginIDs); ok {
			a.PluginIDs = ids
		}
		if d, ok := r.duration(raw.IdleStop, "idle_stop", true); ok {
			a.IdleStop = d
		}
		if n, ok := r.integer(raw.MaxProcs, "max_procs", 0, maxMaxProcs); ok {
			a.MaxProcs = int(n)
		}
		if raw.ReferencePricing != nil {
			a.ReferencePricing = r.reference(raw.ReferencePricing)
		}
		if raw.Billing != nil {
			a.Billing = r.billing(raw.Billing)
		}
		if raw.Archive != nil {
			a.Archive = r.archive(raw.Archive)
		}
		if raw.Responses != nil {
			a.Responses = r.responses(raw.Responses)
		}
	}
	a.Media = r.media(mediaOf(raw))
	if a.PluginDir == "" {
		a.PluginDir = filepath.Join(a.StateDir, "plugins")
	}
	if a.TokenFile == "" {
		a.TokenFile = filepath.Join(a.StateDir, "token")
	}
	return a
}

func (r *reader) listenAddr(s string, rng hcl.Range) bool {
	host, port, err := net.SplitHostPort(s)
	if err == nil {
		_, err = strconv.ParseUint(port, 10, 16)
	}
	if err != nil || host == "" {
		r.errorf(rng, "Invalid listen address", "%q is not a host:port address such as %q.", s, DefaultListen)
		return false
	}
	return true
}

var (
	pluginName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	hexSHA256  = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)
)

// pluginBlock fills what every plugin-backed block shares. pluginExpr may
// be absent; fallback is then the plugin name ("" means none).
func (r *reader) pluginBlock(b *PluginBlock, pluginExpr, shaExpr, sandboxExpr hcl.Expression, grant *rawGrant, fallback string, axon Axon) {
	b.ctx, b.dir, b.home = r.ctx, r.dir, r.home
	b.Sandbox = axon.Sandbox
	b.MaxProcs = axon.MaxProcs
	if b.Kind != sdk.KindDisplay {
		// A display is left running: a panel keeps its image, and a new
		// process would initialise it again on its next frame.
		b.IdleStop = axon.IdleStop
	}
	b.Plugin = fallback
	b.PluginRange = b.DefRange
	if s, ok := r.str(pluginExpr, "plugin"); ok {
		b.Plugin = s
		b.PluginRange = pluginExpr.Range()
		if !pluginName.MatchString(s) {
			r.errorf(pluginExpr.Range(), "Invalid plugin name",
				"%q is not a plugin name: use lower-case letters, digits, - and _; plugin = \"NAME\" runs the binary %s from plugin_dir.",
				s, BinaryName(b.Kind, "NAME"))
			b.Plugin = ""
		}
	} else if b.Plugin != "" && !pluginName.MatchString(b.Plugin) {
		r.errorf(b.DefRange, "Invalid plugin name",
			"Without a plugin argument the label %q is the plugin name, and it is not one: set plugin = \"NAME\" (the binary %s) using lower-case letters, digits, - and _.",
			b.Plugin, BinaryName(b.Kind, "NAME"))
		b.Plugin = ""
	}
	if s, ok := r.str(shaExpr, "sha256"); ok {
		if hexSHA256.MatchString(s) {
			b.SHA256 = strings.ToLower(s)
		} else {
			r.errorf(shaExpr.Range(), "Invalid sha256", "A sha256 is 64 hexadecimal digits, as printed by \"sha256sum %s\" or \"axon plugins\".", b.Binary())
		}
	}
	if s, ok := r.sandbox(sandboxExpr); ok {
		b.Sandbox = s
	}
	b.Grants = r.grants(grant)
}

// process reads a block's own idle_stop ("0s" keeps the plugin running)
// and max_procs, which win over the axon block's.
func (r *reader) process(b *PluginBlock, idleStop, maxProcs hcl.Expression) {
	if d, ok := r.duration(idleStop, "idle_stop", true); ok {
		b.IdleStop = d
	}
	if n, ok := r.integer(maxProcs, "max_procs", 0, maxMaxProcs); ok {
		b.MaxProcs = int(n)
	}
}

func (r *reader) label(name string, rng hcl.Range, kind string) {
	if !hclsyntax.ValidIdentifier(name) {
		r.errorf(rng, "Invalid "+kind+" name",
			"%q cannot be used as a %s name: use letters, digits, - and _, starting with a letter, so that it can be referenced as %s.NAME.", name, kind, kind)
	}
}

func (r *reader) chain(raw *rawChain) *Chain {
	c := &Chain{
		Name:     raw.Name,
		DefRange: raw.DefRange,
		Retry:    Retry{Attempts: DefaultRetryAttempts, Backoff: DefaultRetryBackoff, MaxRetryAfter: DefaultMaxRetryAfter},
	}
	r.label(raw.Name, raw.NameRange, "chain")
	if r.required(raw.Providers, "providers", raw.DefRange, "providers = [provider.ollama]") {
		c.Providers, c.ProviderRanges = r.providerRefs(raw.Providers)
	}
	if raw.Retry != nil {
		if n, ok := r.integer(raw.Retry.Attempts, "attempts", 1, 10); ok {
			c.Retry.Attempts = int(n)
		}
		if d, ok := r.duration(raw.Retry.Backoff, "backoff", true); ok {
			c.Retry.Backoff = d
		}
		if d, ok := r.duration(raw.Retry.MaxRetryAfter, "max_retry_after", true); ok {
			c.Retry.MaxRetryAfter = d
		}
	}
	if b, ok := r.boolean(raw.AllowContentFilterFallback, "allow_content_filter_fallback"); ok {
		c.AllowContentFilterFallback = b
	}
	r.chainRouting(c, raw)
	return c
}

// providerRefs reads providers = [provider.a, provider.b]; strings "a" and
// "provider.a" are accepted too.
func (r *reader) providerRefs(e hcl.Expression) ([]string, []hcl.Range) {
	elems, diags := hcl.ExprList(e)
	if diags.HasErrors() {
		r.errorf(e.Range(), "Invalid providers list", "providers must be a list such as [provider.glm, provider.ollama].")
		return nil, nil
	}
	if len(elems) == 0 {
		r.errorf(e.Range(), "Empty chain", "A chain needs at least one provider, e.g. providers = [provider.ollama].")
		return nil, nil
	}
	var names []string
	var ranges []hcl.Range
	for _, el := range elems {
		name, ok := r.providerRef(el)
		if !ok {
			continue
		}
		names = append(names, name)
		ranges = append(ranges, el.Range())
	}
	return names, ranges
}

func (r *reader) providerRef(e hcl.Expression) (string, bool) {
	if trav, diags := hcl.AbsTraversalForExpr(e); !diags.HasErrors() {
		if len(trav) == 2 && trav.RootName() == "provider" {
			if attr, ok := trav[1].(hcl.TraverseAttr); ok {
				return attr.Name, true
			}
		}
		r.errorf(e.Range(), "Invalid provider reference", "A chain entry is a provider reference such as provider.glm.")
		return "", false
	}
	s, ok := r.str(e, "providers")
	if !ok {
		return "", false
	}
	return strings.TrimPrefix(s, "provider."), true
}

func (r *reader) tool(raw *rawTool, axon Axon) *Tool {
	t := &Tool{PluginBlock: PluginBlock{Kind: sdk.KindTool, Name: raw.Name, Body: raw.Remain, DefRange: raw.DefRange}}
	r.label(raw.Name, raw.NameRange, "tool")
	r.pluginBlock(&t.PluginBlock, raw.Plugin, raw.SHA256, raw.Sandbox, raw.Grant, raw.Name, axon)
	r.process(&t.PluginBlock, raw.IdleStop, raw.MaxProcs)
	r.pluginHome(&t.PluginBlock, raw.Home, nil)
	t.Egress = r.egress(raw.Egress, nil, false)
	r.checkProxy(&t.PluginBlock, t.Egress, raw.Egress, raw.Sandbox, "")
	r.checkPluginBody(&t.PluginBlock, toolNames)
	return t
}

func (r *reader) display(raw *rawDisplay, axon Axon) *Display {
	d := &Display{PluginBlock: PluginBlock{Kind: sdk.KindDisplay, Name: raw.Name, Body: raw.Remain, DefRange: raw.DefRange}}
	r.label(raw.Name, raw.NameRange, "display")
	r.pluginBlock(&d.PluginBlock, raw.Plugin, raw.SHA256, raw.Sandbox, raw.Grant, raw.Name, axon)
	r.process(&d.PluginBlock, raw.IdleStop, raw.MaxProcs)
	r.checkPluginBody(&d.PluginBlock, displayNames)
	return d
}

func (r *reader) vault(raw *rawVault) *Vault {
	v := &Vault{DefRange: raw.DefRange}
	r.required(raw.Dir, "dir", raw.DefRange, `dir = "~/.config/axon/vault"`)
	if p, ok := r.path(raw.Dir, "dir"); ok {
		v.Dir = p
	}
	return v
}

// inSourceOrder sorts diagnostics by where they point: hcl reports a
// block's unsupported arguments in map order, and `axon check` must print
// the same thing every time.
func inSourceOrder(diags hcl.Diagnostics) hcl.Diagnostics {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Subject, diags[j].Subject
		switch {
		case a == nil || b == nil:
			return a != nil && b == nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	})
	return diags
}
