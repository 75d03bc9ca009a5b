package pluginschema

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/axonhq/axon/sdk"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Decode evaluates the plugin-owned attributes in body against schema and
// returns them as one JSON object, ready for sdk.Config.Values: values are
// converted to their declared types, defaults fill absent attributes, and
// absent attributes without a default are left out (never zeroed).
//
// Unknown attributes and blocks are errors whose diagnostic points at the
// offending line, suggests the nearest valid name and lists the valid ones.
// A schema that fails Validate yields one diagnostic blaming the plugin.
func Decode(body hcl.Body, schema sdk.Schema, ctx *hcl.EvalContext) (json.RawMessage, hcl.Diagnostics) {
	c, err := compile(schema)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Plugin declares an invalid configuration schema",
			Detail:   err.Error() + ". This is a bug in the plugin, not in this configuration: report it to the plugin's author.",
			Subject:  body.MissingItemRange().Ptr(),
		}}
	}

	val, diags := hcldec.Decode(body, c.spec(), ctx)
	explainUnsupported(diags, c.names())
	if diags.HasErrors() {
		return nil, diags
	}

	values := make(map[string]json.RawMessage, len(c.attrs))
	for _, a := range c.attrs {
		v := val.GetAttr(a.Name)
		if v.IsNull() {
			if a.Required {
				diags = diags.Append(missingRequired(body, a))
			}
			continue
		}
		if !v.IsWhollyKnown() {
			diags = diags.Append(&hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Value not known",
				Detail:   fmt.Sprintf("The value of %q must be known when the configuration is loaded.", a.Name),
				Subject:  body.MissingItemRange().Ptr(),
			})
			continue
		}
		raw, err := ctyjson.Marshal(v, v.Type())
		if err != nil {
			diags = diags.Append(&hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Value cannot be passed to the plugin",
				Detail:   fmt.Sprintf("The value of %q cannot be encoded as JSON: %v.", a.Name, err),
				Subject:  body.MissingItemRange().Ptr(),
			})
			continue
		}
		values[a.Name] = raw
	}
	if diags.HasErrors() {
		return nil, diags
	}
	out, err := json.Marshal(values)
	if err != nil {
		// A map of already-encoded JSON values always marshals.
		panic(fmt.Sprintf("pluginschema: marshal values: %v", err))
	}
	return out, diags
}

func missingRequired(body hcl.Body, a compiledAttr) *hcl.Diagnostic {
	detail := fmt.Sprintf("The plugin requires the argument %q (%s).", a.Name, a.Type)
	if a.Description != "" {
		detail += " " + a.Description
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  fmt.Sprintf("Missing required argument %q", a.Name),
		Detail:   detail,
		Subject:  body.MissingItemRange().Ptr(),
	}
}

// explainUnsupported adds the list of valid names to HCL's own "Unsupported
// argument" and "Unsupported block type" diagnostics, which already point at
// the line and carry a "Did you mean" suggestion when one is close.
func explainUnsupported(diags hcl.Diagnostics, names []string) {
	for _, d := range diags {
		switch d.Summary {
		case "Unsupported argument":
			if len(names) == 0 {
				d.Detail += " This plugin takes no arguments of its own."
			} else {
				d.Detail += " Valid arguments: " + strings.Join(names, ", ") + "."
			}
		case "Unsupported block type":
			d.Detail += " Plugins take only arguments (name = value), not blocks."
		}
	}
}
