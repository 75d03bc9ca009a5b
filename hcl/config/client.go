package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/axonhq/axon/hcl/credref"
	"github.com/axonhq/axon/sdk"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// What a block that runs a vendor's command-line client needs from the
// host: a home, where the client keeps its own login, and the egress proxy,
// its only way out. Both are host-owned (home, egress { proxy }) and never
// reach the plugin's body.

// pluginHome reads a provider or tool block's home, else its preset's, checks
// that the directory exists and grants it read-write. e may be absent.
func (r *reader) pluginHome(b *PluginBlock, e hcl.Expression, preset *Preset) {
	s, rng := "", b.DefRange
	switch v, ok := r.str(e, "home"); {
	case ok:
		s, rng = v, e.Range()
	case present(e):
		return // reported by str
	case preset != nil && preset.Home != "":
		s = preset.Home
	default:
		return
	}
	p, err := expandPath(s, r.dir, r.home)
	if err == nil && !strings.HasPrefix(p, "/") {
		err = fmt.Errorf("%q is not an absolute path (or ~/…)", s)
	}
	if err == nil && p == "/" {
		err = fmt.Errorf("%q would make the whole file system the plugin's home, read-write; give the client a directory of its own, such as \"~/.config/axon/%s-home\"", s, b.Name)
	}
	if err != nil {
		r.errorf(rng, `Invalid value for "home"`, "%s.", capitalize(err.Error()))
		return
	}
	st, err := r.stat(p)
	switch {
	case err != nil:
		r.errorf(rng, "Missing home directory", "The home of %s %q, %s, %s. %s",
			b.Kind, b.Name, p, statReason(err), loginHint(p, preset))
		return
	case !st.IsDir():
		r.errorf(rng, "Home is not a directory", "The home of %s %q, %s, is not a directory: the client keeps its login and settings in files under it.", b.Kind, b.Name, p)
		return
	}
	b.Home, b.HomeRange = p, rng
	g := Grant{Path: p, Mode: "rw"}
	if !slices.Contains(b.Grants, g) {
		b.Grants = append(b.Grants, g)
	}
}

func statReason(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "does not exist"
	}
	return fmt.Sprintf("cannot be read (%v)", err)
}

// loginHint says how to make a home: create it, then log the client in
// with HOME set to it, as the preset knows or generically.
func loginHint(dir string, preset *Preset) string {
	login := "<the client's login command>"
	if preset != nil && preset.Login != "" {
		login = preset.Login
	}
	return fmt.Sprintf("Create it, then log the client in with its HOME there, following its prompts:\n\n  mkdir -p %s\n  HOME=%s %s\n\nThe login stays in that directory: the plugin gets it as its HOME, and axon never reads it.", dir, dir, login)
}

// validateHomes refuses a home that holds the host's own files: the
// plugin gets its home read-write, so a home above the user's home, the
// configuration, the state directory (the bearer token), the plugins, the
// vault or a credential file would hand it all of them.
func (r *reader) validateHomes(cfg *Config) {
	type hostPath struct{ path, what string }
	var host []hostPath
	add := func(p, what string) {
		if p != "" {
			host = append(host, hostPath{filepath.Clean(p), what})
		}
	}
	add(r.home, "your home directory")
	add(r.dir, "the configuration's directory")
	add(cfg.Axon.StateDir, "axon's state_dir, which holds the bearer token")
	add(filepath.Dir(cfg.Axon.TokenFile), "the directory of axon's token_file")
	add(cfg.Axon.PluginDir, "the plugin_dir")
	if cfg.Vault != nil {
		add(cfg.Vault.Dir, "the vault")
	}
	for _, p := range cfg.Providers {
		if p.Credential.Source() == credref.SourceFile {
			add(p.Credential.Name(), fmt.Sprintf("the credential file of provider %q", p.Name))
		}
	}
	homeOf := map[string]*PluginBlock{}
	for _, b := range cfg.PluginBlocks() {
		if b.Home == "" {
			continue
		}
		if other, ok := homeOf[b.Home]; ok {
			r.errorf(b.HomeRange, "Home shared with another block",
				"%s %q and %s %q both have home %s. Each block's plugin runs as a user of its own and is handed its home (on a root host the directory is given to that user), so two blocks cannot share one login: give each its own directory and log the client in in each.",
				other.Kind, other.Name, b.Kind, b.Name, b.Home)
			continue
		}
		homeOf[b.Home] = b
		for _, h := range host {
			if h.path == b.Home || strings.HasPrefix(h.path, strings.TrimSuffix(b.Home, "/")+"/") {
				r.errorf(b.HomeRange, "Home holds the host's files",
					"The home of %s %q, %s, is granted to its plugin read-write, and it holds %s (%s). Give the client a directory of its own, such as \"~/.config/axon/%s-home\".",
					b.Kind, b.Name, b.Home, h.path, h.what, b.Name)
				break
			}
		}
	}
}

// proxyDefault is a block's egress { proxy } when it does not say: on for
// a provider whose plugin is "cli" (a command-line client opens its own
// connections and has no other way out) or whose preset says so.
func proxyDefault(b *PluginBlock, preset *Preset) bool {
	return (b.Kind == sdk.KindProvider && b.Plugin == PluginCLI) || (preset != nil && preset.Proxy)
}

// checkProxy reports what a block's egress proxy cannot do: reach anything
// with an empty allow list, confine an unsandboxed plugin, or, turned off,
// give a command-line client any network.
func (r *reader) checkProxy(b *PluginBlock, e Egress, raw *rawEgress, sandboxExpr hcl.Expression, baseURL string) {
	rng := b.DefRange
	written := raw != nil && present(raw.Proxy)
	switch {
	case written:
		rng = raw.Proxy.Range()
	case raw != nil:
		rng = raw.DefRange
	}
	if !e.Proxy {
		if written && b.Kind == sdk.KindProvider && b.Plugin == PluginCLI {
			r.warnf(rng, "Client without network",
				"provider %q runs a command-line client, which opens its own connections: with proxy = false the host offers it no proxy, so the client has no network and every request to it fails. Drop the line to use the proxy.", b.Name)
		}
		return
	}
	if len(e.Allow) == 0 && baseURL == "" {
		subject, detail := rng, ""
		if raw != nil && present(raw.Allow) {
			subject, detail = raw.Allow.Range(), " (this allow list replaces the preset's hosts)"
		}
		r.errorf(subject, "Proxy reaches nothing",
			"The egress proxy of %s %q reaches only its base_url's origin and its egress allow list; it has no base_url and the list is empty%s. List the hosts the client connects to, e.g. egress { allow = [\"api.anthropic.com\"] }.",
			b.Kind, b.Name, detail)
	}
	if b.Sandbox == SandboxNone {
		subject := rng
		if present(sandboxExpr) {
			subject = sandboxExpr.Range()
		}
		r.warnf(subject, "Unsandboxed plugin is not confined to the proxy",
			"%s %q runs with sandbox = \"none\": the host offers it the proxy, but nothing keeps the plugin, or the client it starts, from opening any other connection. On Linux, sandbox = \"full\" leaves it the proxy as its only way out.",
			b.Kind, b.Name)
	}
}

// checkModelToken warns when a command-line client's model and command
// disagree: a model the command never passes on, or a {model} with no
// model to put there.
func (r *reader) checkModelToken(p *Provider) {
	if p.Plugin != PluginCLI {
		return
	}
	command, cmdRange, written := pluginValue(p.Body, "command", r.ctx)
	if !written {
		if p.preset == nil {
			return
		}
		command, cmdRange = p.preset.Values["command"], p.DefRange
	}
	if command != cty.NilVal && !command.IsWhollyKnown() {
		return
	}
	uses := commandUses(command, "{model}")
	_, modelRange, modelWritten := pluginValue(p.Body, "model", r.ctx)
	switch {
	case modelWritten && !uses:
		r.warnf(modelRange, "Model is not passed to the client",
			"provider %q sets model, but its command has no element with {model}, so the client answers with its own default model. Add the client's model flag to command, e.g. \"--model\", \"{model}\".", p.Name)
	case uses && p.model == "":
		r.warnf(cmdRange, "No model for {model}",
			"The command of provider %q passes {model}, but neither the block nor its preset sets model. Set model, or drop the flag to let the client choose.", p.Name)
	}
}

// pluginValue evaluates one plugin-owned attribute without decoding the
// rest of the body. A value that does not evaluate counts as written but
// unknown; DecodePluginBody reports it against the plugin's schema.
func pluginValue(body hcl.Body, name string, ctx *hcl.EvalContext) (cty.Value, hcl.Range, bool) {
	content, _, _ := body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: name}}})
	attr := content.Attributes[name]
	if attr == nil {
		return cty.NilVal, hcl.Range{}, false
	}
	v, diags := attr.Expr.Value(ctx)
	if diags.HasErrors() {
		v = cty.DynamicVal
	}
	return v, attr.Expr.Range(), true
}
