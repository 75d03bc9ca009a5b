package config

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/axonhq/axon/hcl/credref"
	"github.com/axonhq/axon/sdk"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

func (r *reader) provider(raw *rawProvider, axon Axon) *Provider {
	p := &Provider{PluginBlock: PluginBlock{Kind: sdk.KindProvider, Name: raw.Name, Body: raw.Remain, DefRange: raw.DefRange}}
	r.label(raw.Name, raw.NameRange, "provider")

	if name, ok := r.str(raw.Preset, "preset"); ok {
		if pr, found := LookupPreset(name); found {
			p.preset, p.Preset = &pr, name
		} else {
			r.errorf(raw.Preset.Range(), "Unknown preset", "There is no preset %q.%s Presets: %s.", name, didYouMean(name, PresetNames()), strings.Join(PresetNames(), ", "))
		}
	}
	fallback := ""
	if p.preset != nil {
		fallback = p.preset.Plugin
	}
	r.pluginBlock(&p.PluginBlock, raw.Plugin, raw.SHA256, raw.Sandbox, raw.Grant, fallback, axon)
	r.process(&p.PluginBlock, raw.IdleStop, raw.MaxProcs)
	r.pluginHome(&p.PluginBlock, raw.Home, p.preset)
	if p.Plugin == PluginCLI && !present(raw.Home) && (p.preset == nil || p.preset.Home == "") {
		r.warnf(raw.DefRange, "Client without a home",
			"provider %q runs a command-line client but sets no home, so the client starts with an empty HOME and no login. Set home = \"~/.config/axon/%s-home\" and log the client in there.", p.Name, p.Name)
	}
	if !present(raw.Preset) && !present(raw.Plugin) {
		hint := ""
		if _, ok := LookupPreset(raw.Name); ok {
			hint = fmt.Sprintf(" Did you mean preset = %q?", raw.Name)
		}
		r.errorf(raw.DefRange, "Missing plugin", "provider %q needs plugin = \"NAME\" (the binary %s) or preset = \"NAME\".%s", raw.Name, BinaryName(sdk.KindProvider, "NAME"), hint)
	}

	r.credential(p, raw)
	if raw.Auth != nil {
		p.Auth = r.auth(raw.Auth)
		if o, ok := r.strs(raw.Auth.Origins, "origins"); ok {
			p.AuthOrigins = o
		}
	} else if p.preset != nil {
		a := p.preset.Auth
		p.Auth = &a
	}
	if !p.Credential.IsZero() && p.Auth != nil && p.Auth.Scheme == sdk.AuthNone {
		r.warnf(raw.DefRange, "Credential is never sent",
			"provider %q has a credential but its auth scheme is none, so the host never sends it. Add auth { scheme = \"bearer\" } (or header/query with a name).", p.Name)
	}

	if p.preset != nil {
		p.Tier = p.preset.Tier
	}
	if s, ok := r.oneOf(raw.Tier, "tier", string(TierLocal), string(TierSub), string(TierAPI)); ok {
		p.Tier = Tier(s)
	}
	if s, ok := r.strs(raw.GoodAt, "good_at"); ok {
		p.GoodAt = s
	}
	if n, ok := r.integer(raw.ContextWindow, "context_window", 1, 1<<40); ok {
		p.ContextWindow = int(n)
	}
	p.Prefill = r.strictBool(raw.Prefill, "prefill")
	p.StructuredOutput = r.strictBool(raw.StructuredOutput, "structured_output")
	if p.StructuredOutput == nil && p.preset != nil && p.preset.NoStructuredOutput {
		p.StructuredOutput = new(false) // the vendor's API cannot guarantee a schema
	}
	p.Enabled = r.strictBool(raw.Enabled, "enabled")
	if b := r.strictBool(raw.CanDelegate, "can_delegate"); b != nil {
		p.CanDelegate, p.CanDelegateRange = *b, raw.CanDelegate.Range()
	}
	if raw.Budget != nil {
		p.Budget = r.budget(raw.Budget)
	}
	if raw.Pricing != nil {
		p.Pricing.InputPerMTok, _ = r.float(raw.Pricing.Input, "input_per_mtok")
		p.Pricing.OutputPerMTok, _ = r.float(raw.Pricing.Output, "output_per_mtok")
		p.Pricing.CacheReadPerMTok, _ = r.float(raw.Pricing.CacheRead, "cache_read_per_mtok")
		p.Pricing.CacheWritePerMTok, _ = r.float(raw.Pricing.CacheWrite, "cache_write_per_mtok")
	}
	p.Egress = r.egress(raw.Egress, p.preset, proxyDefault(&p.PluginBlock, p.preset))
	p.Timeouts = Timeouts{FirstToken: firstTokenFor(p.preset, p.Plugin, p.Tier), Idle: DefaultIdle}
	if raw.Timeouts != nil {
		if d, ok := r.duration(raw.Timeouts.FirstToken, "first_token", false); ok {
			p.Timeouts.FirstToken = d
		}
		if d, ok := r.duration(raw.Timeouts.Idle, "idle", false); ok {
			p.Timeouts.Idle = d
		}
	}

	r.checkPluginBody(&p.PluginBlock, providerNames)
	p.baseURL = r.baseURL(p)
	if s, _, ok := r.pluginString(p.Body, "model"); ok {
		p.model = s
	} else if p.preset != nil {
		p.model = p.preset.Model
	}
	r.checkProxy(&p.PluginBlock, p.Egress, raw.Egress, raw.Sandbox, p.baseURL)
	r.checkModelToken(p)
	return p
}

// firstTokenFor is a provider's first-token bound when its block sets
// none: the preset's own, else by plugin and tier. A command-line client
// (plugin "cli") answers in one piece, so its first token is its whole
// answer; tier "local" waits minutes for a cold model; a hosted provider
// (tier "sub" or "api", or any preset that is not local) seconds; a
// provider of unknown tier keeps the old minute.
func firstTokenFor(preset *Preset, plugin string, tier Tier) time.Duration {
	switch {
	case preset != nil && preset.FirstToken > 0 && preset.Tier == tier:
		return preset.FirstToken
	case plugin == PluginCLI:
		return cliFirstToken
	case tier == TierLocal:
		return DefaultLocalFirstToken
	case tier == TierSub, tier == TierAPI, preset != nil:
		return DefaultHostedFirstToken
	}
	return DefaultFirstToken
}

// present reports whether an optional attribute was written (and is not
// null). gohcl fills an absent one with a static null expression.
func present(e hcl.Expression) bool {
	if e == nil {
		return false
	}
	v, diags := e.Value(nil)
	return diags.HasErrors() || !v.IsNull()
}

func (r *reader) credential(p *Provider, raw *rawProvider) {
	s, ok := r.str(raw.Credential, "credential")
	if !ok {
		if p.preset != nil && p.preset.KeyEnv != "" && !present(raw.Credential) {
			// Every preset's KeyEnv is a valid name (TestPresetTable).
			p.Credential, _ = credref.Env(p.preset.KeyEnv)
			p.CredentialRange = raw.DefRange
		}
		return
	}
	c, err := credref.Parse(s)
	if errors.Is(err, credref.ErrLiteral) {
		// Point at the block header, not the value: a diagnostic printer
		// shows the source line of its subject, and this one may hold a
		// pasted secret.
		r.errorf(raw.DefRange, "Literal credential",
			"The credential of provider %q (line %d) is a literal value. Write credential = env(\"NAME\") or file(\"PATH\"): axon reads the secret only when it calls the provider and never stores it in a configuration file.",
			p.Name, raw.Credential.Range().Start.Line)
		return
	}
	if err != nil {
		r.errorf(raw.Credential.Range(), "Invalid credential", "%s.", capitalize(err.Error()))
		return
	}
	p.Credential = c
	p.CredentialRange = raw.Credential.Range()
}

func (r *reader) auth(raw *rawAuth) *sdk.Auth {
	if !r.required(raw.Scheme, "scheme", raw.DefRange, `scheme = "bearer"`) {
		return nil
	}
	scheme, ok := r.oneOf(raw.Scheme, "scheme", string(sdk.AuthBearer), string(sdk.AuthHeader), string(sdk.AuthQuery), "none")
	if !ok {
		return nil
	}
	a := &sdk.Auth{Scheme: sdk.AuthScheme(scheme)}
	if scheme == "none" {
		a.Scheme = sdk.AuthNone
	}
	name, hasName := r.str(raw.Name, "name")
	switch {
	case (a.Scheme == sdk.AuthHeader || a.Scheme == sdk.AuthQuery) && !hasName:
		r.errorf(raw.DefRange, "Missing auth name",
			"auth scheme %q needs name: the header (e.g. name = \"x-api-key\") or query parameter (e.g. name = \"key\") that carries the credential.", scheme)
		return nil
	case (a.Scheme == sdk.AuthBearer || a.Scheme == sdk.AuthNone) && hasName:
		r.errorf(raw.Name.Range(), "Unexpected auth name", "name is used only with scheme \"header\" or \"query\"; scheme %q does not take one.", scheme)
		return nil
	case hasName && !validHeaderName(name):
		r.errorf(raw.Name.Range(), "Invalid auth name", "%q is not a valid header or query parameter name.", name)
		return nil
	}
	a.Name = name
	return a
}

var headerToken = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

func validHeaderName(s string) bool { return headerToken.MatchString(s) }

// egress reads a block's egress block over the defaults, the preset's
// response timeout and hosts, and proxy, the block's proxy default. A
// written allow list replaces the preset's hosts: the block always wins.
func (r *reader) egress(raw *rawEgress, preset *Preset, proxy bool) Egress {
	e := egressDefaults()
	e.Proxy = proxy
	if preset != nil {
		if preset.Response > 0 {
			e.ResponseTimeout = preset.Response
		}
		e.Allow = slices.Clone(preset.Allow)
	}
	if raw == nil {
		return e
	}
	if b := r.strictBool(raw.Proxy, "proxy"); b != nil {
		e.Proxy = *b
	}
	if allow, ok := r.strs(raw.Allow, "allow"); ok {
		e.Allow = []string{}
		for _, a := range allow {
			if err := checkOrigin(a); err != nil {
				r.errorf(raw.Allow.Range(), "Invalid egress allow entry", "%q: %s. Entries look like \"https://api.example.com\", \"api.example.com\", \"api.example.com:8443\" or \"*.example.com\".", a, err)
				continue
			}
			e.Allow = append(e.Allow, a)
		}
	}
	if d, ok := r.duration(raw.ConnectTimeout, "connect_timeout", false); ok {
		e.ConnectTimeout = d
	}
	if d, ok := r.duration(raw.ResponseTimeout, "response_timeout", false); ok {
		e.ResponseTimeout = d
	}
	if d, ok := r.duration(raw.TotalTimeout, "total_timeout", false); ok {
		e.TotalTimeout = d
	}
	if d, ok := r.duration(raw.RequestIdleTimeout, "request_idle_timeout", false); ok {
		e.RequestIdleTimeout = d
	}
	if n, ok := r.integer(raw.MaxRequestBytes, "max_request_bytes", 1, 1<<40); ok {
		e.MaxRequestBytes = n
	}
	if n, ok := r.integer(raw.MaxResponseBytes, "max_response_bytes", 1, 1<<40); ok {
		e.MaxResponseBytes = n
	}
	if n, ok := r.integer(raw.MaxConcurrent, "max_concurrent", 1, 1024); ok {
		e.MaxConcurrent = int(n)
	}
	if e.TotalTimeout < e.ResponseTimeout {
		rng := raw.DefRange
		switch {
		case present(raw.TotalTimeout):
			rng = raw.TotalTimeout.Range()
		case present(raw.ResponseTimeout):
			rng = raw.ResponseTimeout.Range()
		}
		r.warnf(rng, "total_timeout shorter than response_timeout",
			"total_timeout (%s) ends every request before response_timeout (%s) can: an answer slower than %s always fails. Raise total_timeout or lower response_timeout.",
			e.TotalTimeout, e.ResponseTimeout, e.TotalTimeout)
	}
	return e
}

// egressDefaults is the egress a block gets when it says nothing.
func egressDefaults() Egress {
	return Egress{
		ConnectTimeout: DefaultConnectTimeout, ResponseTimeout: DefaultResponseTimeout, TotalTimeout: DefaultTotalTimeout,
		RequestIdleTimeout: DefaultRequestIdleTimeout, MaxRequestBytes: DefaultMaxRequestBytes,
		MaxResponseBytes: DefaultMaxResponseBytes, MaxConcurrent: DefaultMaxConcurrent,
	}
}

// strictBool reads an optional attribute that must be written true or
// false: unlike a converted value, "true" (a string) or 1 is an error, not
// a boolean. nil when absent or invalid.
func (r *reader) strictBool(e hcl.Expression, name string) *bool {
	if !present(e) {
		return nil
	}
	v, diags := e.Value(r.ctx)
	r.diags = r.diags.Extend(diags)
	if diags.HasErrors() || v.IsNull() {
		return nil
	}
	if !v.IsWhollyKnown() || v.Type() != cty.Bool {
		r.errorf(e.Range(), fmt.Sprintf("Invalid value for %q", name), "The value must be true or false.")
		return nil
	}
	b := v.True()
	return &b
}
