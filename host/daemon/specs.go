package daemon

import (
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/hcl/pluginschema"
	"github.com/axonhq/axon/host/egress"
	"github.com/axonhq/axon/host/sandbox"
	"github.com/axonhq/axon/host/supervisor"
	"github.com/axonhq/axon/sdk"
)

// ConfigError carries HCL diagnostics (with file and line) out of a plugin
// start, for the CLI to print with their source.
type ConfigError struct{ Diags hcl.Diagnostics }

func (e *ConfigError) Error() string { return e.Diags.Error() }

// pluginSpec builds the supervisor spec shared by every kind of block.
func pluginSpec(cfg *config.Config, lock *config.Lock, b *config.PluginBlock) (supervisor.Spec, error) {
	sp := supervisor.Spec{
		Name:     b.Name,
		Kind:     b.Kind,
		Path:     cfg.PluginPath(b),
		Sandbox:  supervisor.Sandbox(b.Sandbox),
		Grants:   grants(b.Grants),
		IdleStop: b.IdleStop,
		MaxProcs: b.MaxProcs,
		Home:     b.Home,
		Values: func(info sdk.Info) (json.RawMessage, error) {
			if err := pluginschema.Validate(info.Config); err != nil {
				return nil, fmt.Errorf("plugin %s declares a bad schema: %w", b.Binary(), err)
			}
			v, diags := config.DecodePluginBody(b, info.Config)
			if diags.HasErrors() {
				return nil, &ConfigError{Diags: diags}
			}
			return v, nil
		},
	}
	if pin := b.Pin(lock); pin != "" {
		sum, err := hex.DecodeString(pin)
		if err != nil {
			return sp, fmt.Errorf("%s: bad sha256 pin: %w", b.Name, err)
		}
		sp.SHA256 = sum
	}
	return sp, nil
}

// grant derives what a provider may reach: its base_url's origin plus its
// egress allow list, with its credential placed as configured (or as the
// plugin declares when the block says nothing).
func providerGrant(p *config.Provider) (*egress.Grant, error) {
	entries := append([]string{}, p.Egress.Allow...)
	if u := p.BaseURL(); u != "" {
		entries = append(entries, u)
	}
	allow, err := egress.NewAllowList(entries...)
	if err != nil {
		return nil, err
	}
	// The credential goes only to the provider's own origin and the ones
	// auth { origins } names, never to the rest of egress { allow }.
	injectTo := append([]string{}, p.AuthOrigins...)
	if u := p.BaseURL(); u != "" {
		injectTo = append(injectTo, u)
	}
	inject, err := egress.NewAllowList(injectTo...)
	if err != nil {
		return nil, err
	}
	g := limits(p.Egress)
	g.Allow, g.Inject, g.Credential = allow, inject, p.Credential
	if p.Auth != nil {
		g.Auth, g.AuthSet = *p.Auth, true
	}
	return g, nil
}

func toolGrant(t *config.Tool) (*egress.Grant, error) {
	if len(t.Egress.Allow) == 0 {
		return nil, nil
	}
	allow, err := egress.NewAllowList(t.Egress.Allow...)
	if err != nil {
		return nil, err
	}
	g := limits(t.Egress)
	g.Allow = allow
	return g, nil
}

// limits copies a block's egress limits into a grant.
func limits(e config.Egress) *egress.Grant {
	return &egress.Grant{
		ConnectTimeout: e.ConnectTimeout, ResponseTimeout: e.ResponseTimeout, TotalTimeout: e.TotalTimeout,
		RequestIdleTimeout: e.RequestIdleTimeout, MaxRequestBytes: e.MaxRequestBytes,
		MaxResponseBytes: e.MaxResponseBytes, MaxConcurrent: e.MaxConcurrent,
		Proxy: e.Proxy,
	}
}

// grants turns a block's grant {} into the sandbox's grants. A read-write
// directory is handed to the plugin's own uid on a root host.
func grants(gs []config.Grant) []sandbox.Grant {
	var out []sandbox.Grant
	for _, g := range gs {
		mode := sandbox.GrantMode(g.Mode)
		out = append(out, sandbox.Grant{Path: g.Path, Mode: mode, Owner: mode == sandbox.ReadWrite})
	}
	return out
}
