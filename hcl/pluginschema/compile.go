package pluginschema

import (
	"errors"
	"fmt"

	"github.com/axonhq/axon/sdk"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// compiled is a validated schema: each attribute's cty type and default.
type compiled struct {
	attrs []compiledAttr
}

type compiledAttr struct {
	sdk.Attribute
	ty  cty.Type
	def cty.Value // cty.NilVal when the attribute has no default
}

// Validate reports every problem in a plugin's declared schema: names that
// are not HCL identifiers or appear twice, type expressions that do not
// parse, defaults that do not fit their type, and required attributes that
// also carry a default. A problem here is a bug in the plugin, never in the
// user's configuration.
func Validate(s sdk.Schema) error {
	_, err := compile(s)
	return err
}

// Spec turns a plugin's schema into the hcldec specification the host decodes
// with. Every attribute is optional in the spec; Decode checks required ones
// itself so that the diagnostic can point at the block.
func Spec(s sdk.Schema) (hcldec.ObjectSpec, error) {
	c, err := compile(s)
	if err != nil {
		return nil, err
	}
	return c.spec(), nil
}

func compile(s sdk.Schema) (*compiled, error) {
	var errs []error
	c := &compiled{}
	seen := make(map[string]bool, len(s.Attributes))
	for _, a := range s.Attributes {
		ca, err := compileAttr(a)
		if err != nil {
			errs = append(errs, fmt.Errorf("attribute %q: %w", a.Name, err))
			continue
		}
		if seen[a.Name] {
			errs = append(errs, fmt.Errorf("attribute %q is declared twice", a.Name))
			continue
		}
		seen[a.Name] = true
		c.attrs = append(c.attrs, ca)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("invalid plugin configuration schema: %w", errors.Join(errs...))
	}
	return c, nil
}

func compileAttr(a sdk.Attribute) (compiledAttr, error) {
	if !hclsyntax.ValidIdentifier(a.Name) {
		return compiledAttr{}, errors.New("name is not a valid HCL identifier")
	}
	ty := cty.String // sdk.TypePath: a string, expanded by the caller
	if a.Type != sdk.TypePath {
		var err error
		if ty, err = ParseType(a.Type); err != nil {
			return compiledAttr{}, err
		}
	}
	ca := compiledAttr{Attribute: a, ty: ty, def: cty.NilVal}
	if len(a.Default) > 0 {
		if a.Required {
			return compiledAttr{}, errors.New("a required attribute cannot have a default")
		}
		v, err := ctyjson.Unmarshal(a.Default, ty)
		if err != nil {
			return compiledAttr{}, fmt.Errorf("default %s does not fit type %s: %w", a.Default, a.Type, err)
		}
		ca.def = v
	}
	return ca, nil
}

// ParseType parses an HCL type expression such as "string", "list(string)"
// or "map(number)". The dynamic type "any" is refused: the host must know
// the exact type to hand the plugin plain JSON.
func ParseType(expr string) (cty.Type, error) {
	if expr == "" {
		return cty.NilType, errors.New("type is empty")
	}
	e, diags := hclsyntax.ParseExpression([]byte(expr), "type", hcl.InitialPos)
	if diags.HasErrors() {
		return cty.NilType, fmt.Errorf("type %q does not parse: %s", expr, diagSummary(diags))
	}
	ty, diags := typeexpr.Type(e)
	if diags.HasErrors() {
		return cty.NilType, fmt.Errorf("type %q is not a valid type expression: %s", expr, diagSummary(diags))
	}
	return ty, nil
}

func (c *compiled) spec() hcldec.ObjectSpec {
	spec := make(hcldec.ObjectSpec, len(c.attrs))
	for _, a := range c.attrs {
		var s hcldec.Spec = &hcldec.AttrSpec{Name: a.Name, Type: a.ty}
		if a.def != cty.NilVal {
			s = &hcldec.DefaultSpec{Primary: s, Default: &hcldec.LiteralSpec{Value: a.def}}
		}
		spec[a.Name] = s
	}
	return spec
}

func (c *compiled) names() []string {
	names := make([]string, len(c.attrs))
	for i, a := range c.attrs {
		names[i] = a.Name
	}
	return names
}

func diagSummary(diags hcl.Diagnostics) string {
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			if d.Detail != "" {
				return d.Summary + ": " + d.Detail
			}
			return d.Summary
		}
	}
	return ""
}
