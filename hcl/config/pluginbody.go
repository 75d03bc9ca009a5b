package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/axonhq/axon/hcl/internal/suggest"
	"github.com/axonhq/axon/hcl/pluginschema"
	"github.com/axonhq/axon/sdk"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The host-owned names of each kind of plugin block, derived once from the
// raw schema structs and never changed.
var (
	providerNames = namesOf(&rawProvider{})
	toolNames     = namesOf(&rawTool{})
	displayNames  = namesOf(&rawDisplay{})
	kindNames     = map[sdk.Kind]hostNames{
		sdk.KindProvider: providerNames,
		sdk.KindTool:     toolNames,
		sdk.KindDisplay:  displayNames,
	}
)

// DecodePluginBody decodes the plugin-owned attributes of b against the
// schema its plugin reported, filling base_url, model and the preset's
// other Values from the provider's preset where the block leaves them out
// and the plugin declares them, and expanding the sdk.TypePath ones as
// grant paths are. The result is the JSON object for sdk.Config.Values.
func DecodePluginBody(b *PluginBlock, schema sdk.Schema) (json.RawMessage, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	for _, a := range schema.Attributes {
		if kinds := ownersOf(a.Name); len(kinds) > 0 {
			diags = diags.Append(&hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Plugin declares a reserved argument",
				Detail: fmt.Sprintf("The plugin %s declares the argument %q, which the host owns in %s blocks. This is a bug in the plugin: report it to the plugin's author.",
					b.Binary(), a.Name, strings.Join(kinds, " and ")),
				Subject: b.DefRange.Ptr(),
			})
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	body := b.Body
	if pb := b.presetBody(schema); pb != nil {
		body = hcl.MergeBodies([]hcl.Body{b.Body, pb})
	}
	values, diags := pluginschema.Decode(body, schema, b.ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	return b.expandPaths(values, schema, diags)
}

// expandPaths expands ~ in the values of schema's sdk.TypePath attributes
// and makes them absolute against the block's file, so that the sandboxed
// plugin, with its own home and working directory, gets the path the user
// meant. An empty value is left for the plugin to judge.
func (b *PluginBlock) expandPaths(values json.RawMessage, schema sdk.Schema, diags hcl.Diagnostics) (json.RawMessage, hcl.Diagnostics) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(values, &obj); err != nil {
		panic(fmt.Sprintf("config: pluginschema.Decode returned no JSON object: %v", err)) // it marshals a map
	}
	changed := false
	for _, a := range schema.Attributes {
		var s string
		if a.Type != sdk.TypePath || json.Unmarshal(obj[a.Name], &s) != nil || s == "" {
			continue
		}
		p, err := expandPath(s, b.dir, b.home)
		if err != nil {
			diags = diags.Append(&hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  fmt.Sprintf("Invalid value for %q", a.Name),
				Detail:   fmt.Sprintf("%s.", capitalize(err.Error())),
				Subject:  b.attrRange(a.Name).Ptr(),
			})
			continue
		}
		obj[a.Name], _ = json.Marshal(p) // a string always marshals
		changed = true
	}
	if diags.HasErrors() {
		return nil, diags
	}
	if !changed {
		return values, diags
	}
	out, err := json.Marshal(obj)
	if err != nil {
		panic(fmt.Sprintf("config: marshal values: %v", err)) // a map of JSON values always marshals
	}
	return out, diags
}

// attrRange is where the block writes the plugin-owned attribute name, or
// the block's header when it leaves the attribute to its default.
func (b *PluginBlock) attrRange(name string) hcl.Range {
	content, _, _ := b.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: name}}})
	if a := content.Attributes[name]; a != nil {
		return a.Expr.Range()
	}
	return b.DefRange
}

// presetBody returns a body holding the preset's values for the attributes
// the plugin declares and the block leaves out, or nil.
func (b *PluginBlock) presetBody(schema sdk.Schema) hcl.Body {
	if b.preset == nil {
		return nil
	}
	values := b.preset.values()
	declared := func(name string) bool {
		return slices.ContainsFunc(schema.Attributes, func(a sdk.Attribute) bool { return a.Name == name })
	}
	names := slices.Sorted(maps.Keys(values))
	var want []hcl.AttributeSchema
	for _, name := range names {
		want = append(want, hcl.AttributeSchema{Name: name})
	}
	written, _, _ := b.Body.PartialContent(&hcl.BodySchema{Attributes: want})
	f := hclwrite.NewEmptyFile()
	n := 0
	for _, name := range names {
		if !declared(name) || written.Attributes[name] != nil {
			continue
		}
		f.Body().SetAttributeValue(name, values[name])
		n++
	}
	if n == 0 {
		return nil
	}
	parsed, diags := hclsyntax.ParseConfig(f.Bytes(), fmt.Sprintf("preset %q", b.preset.Name), hcl.InitialPos)
	if diags.HasErrors() {
		// hclwrite only writes what hclsyntax parses.
		panic(fmt.Sprintf("config: preset %q body does not parse: %s", b.preset.Name, diags))
	}
	return parsed.Body
}

// values is every plugin-owned attribute the preset fills: its Values,
// base_url and model (those two when set).
func (p *Preset) values() map[string]cty.Value {
	out := maps.Clone(p.Values)
	if out == nil {
		out = map[string]cty.Value{}
	}
	if p.BaseURL != "" {
		out["base_url"] = cty.StringVal(p.BaseURL)
	}
	if p.Model != "" {
		out["model"] = cty.StringVal(p.Model)
	}
	return out
}

// ownersOf lists the kinds of block in which the host owns name, as an
// argument or as a nested block.
func ownersOf(name string) []string {
	var kinds []string
	for _, k := range []sdk.Kind{sdk.KindProvider, sdk.KindTool, sdk.KindDisplay} {
		if slices.Contains(kindNames[k].attrs, name) || slices.Contains(kindNames[k].blocks, name) {
			kinds = append(kinds, string(k))
		}
	}
	return kinds
}

// checkPluginBody catches, at load time and without the plugin, mistakes in
// the plugin-owned part of a block: blocks (plugins take only arguments),
// host arguments of another kind of block, and near-misses of this kind's
// host arguments, which would otherwise be handed to the plugin.
func (r *reader) checkPluginBody(b *PluginBlock, own hostNames) {
	body, ok := b.Body.(*hclsyntax.Body)
	if !ok {
		return
	}
	for _, blk := range body.Blocks {
		if slices.Contains(own.blocks, blk.Type) {
			continue
		}
		hint := didYouMean(blk.Type, own.blocks)
		if kinds := ownersOf(blk.Type); len(kinds) > 0 {
			hint = fmt.Sprintf(" It belongs in %s blocks.", strings.Join(kinds, " and "))
		}
		allowed := "takes no blocks"
		if len(own.blocks) > 0 {
			allowed = "takes only the blocks " + quoteList(own.blocks)
			if len(own.blocks) == 1 {
				allowed = "takes only the block " + quoteList(own.blocks)
			}
		}
		r.errorf(blk.TypeRange, "Unsupported block type", "Blocks of type %q are not expected in a %s block.%s A %s block %s; plugin settings are arguments (name = value).",
			blk.Type, b.Kind, hint, b.Kind, allowed)
	}
	attrs := make([]*hclsyntax.Attribute, 0, len(body.Attributes))
	for name, a := range body.Attributes {
		if !slices.Contains(own.attrs, name) {
			attrs = append(attrs, a)
		}
	}
	sort.Slice(attrs, func(i, j int) bool { return attrs[i].SrcRange.Start.Byte < attrs[j].SrcRange.Start.Byte })
	for _, a := range attrs {
		if slices.Contains(own.blocks, a.Name) {
			r.errorf(a.NameRange, "Unsupported argument", "%q is a block in a %s block: write %s { ... }, without the equals sign.", a.Name, b.Kind, a.Name)
			continue
		}
		if kinds := ownersOf(a.Name); len(kinds) > 0 {
			r.errorf(a.NameRange, "Unsupported argument", "%q is not valid in a %s block; it belongs in %s blocks.", a.Name, b.Kind, strings.Join(kinds, " and "))
			continue
		}
		if s := suggest.Name(a.Name, own.attrs); s != "" {
			r.warnf(a.NameRange, "Argument passed to the plugin", "%q is not a host argument, so it goes to the %s plugin. Did you mean %q?", a.Name, b.Plugin, s)
		}
	}
}

// pluginString reads one plugin-owned string attribute without decoding
// the rest of the body.
func (r *reader) pluginString(body hcl.Body, name string) (string, hcl.Range, bool) {
	content, _, _ := body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: name}}})
	attr := content.Attributes[name]
	if attr == nil {
		return "", hcl.Range{}, false
	}
	s, ok := r.str(attr.Expr, name)
	return s, attr.Expr.Range(), ok
}

func (r *reader) baseURL(p *Provider) string {
	s, rng, ok := r.pluginString(p.Body, "base_url")
	if !ok {
		if p.preset != nil {
			return p.preset.BaseURL
		}
		return ""
	}
	u, err := checkBaseURL(s)
	if err != nil {
		r.errorf(rng, "Invalid base_url", "%q: %s.", s, err)
		return ""
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) && !p.Credential.IsZero() {
		r.warnf(rng, "Credential sent in clear text", "base_url uses http:// to a host that is not loopback, so the credential of provider %q would cross the network unencrypted. Use https://.", p.Name)
	}
	return s
}
