package edit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// decoder turns an edit's JSON value (never null) into the tokens of an
// HCL expression. Tokens come only from hclwrite's generators, so a user's
// string is always a quoted, escaped literal and never source text.
type decoder func(json.RawMessage) (hclwrite.Tokens, error)

// field is where an edit's value goes: an attribute of the named block,
// or of a nested block in it.
type field struct {
	nested string // nested block type, "" for an attribute of the block itself
	attr   string // the attribute written
	decode decoder
	// wholeBlock: the field is the nested block (budget, classifier), so
	// null removes the block and the edit's range is the block's.
	wholeBlock bool
}

// fieldFor is the table of editable fields.
func fieldFor(block, name string) (field, bool) {
	switch block + "." + name {
	case "provider.enabled", "billing.enabled":
		f := field{attr: "enabled", decode: boolValue}
		if block == "billing" {
			f.nested = "billing"
		}
		return f, true
	case "provider.tier":
		return field{attr: "tier", decode: stringValue}, true
	case "provider.good_at":
		return field{attr: "good_at", decode: stringsValue}, true
	case "provider.budget":
		return field{nested: "budget", attr: "usd_per_month", decode: numberValue, wholeBlock: true}, true
	case "provider.pricing.input", "provider.pricing.output", "provider.pricing.cache_read", "provider.pricing.cache_write":
		return field{nested: "pricing", attr: strings.TrimPrefix(name, "pricing.") + "_per_mtok", decode: numberValue}, true
	case "chain.providers":
		return field{attr: "providers", decode: providersValue}, true
	case "chain.strategy":
		return field{attr: "strategy", decode: stringValue}, true
	case "chain.classifier":
		return field{nested: "classifier", wholeBlock: true}, true
	}
	return field{}, false
}

// plan checks e and returns where it writes and the steps that write it.
func plan(e Edit) (place, []step, error) {
	var top blockRef
	switch e.Block {
	case "provider", "chain":
		if e.Name == "" {
			return place{}, nil, fmt.Errorf("a %s edit needs the %s's name", e.Block, e.Block)
		}
		top = blockRef{typ: e.Block, labels: []string{e.Name}}
	case "billing":
		if e.Name != "" {
			return place{}, nil, fmt.Errorf("a billing edit takes no name")
		}
		top = blockRef{typ: "axon"}
	default:
		return place{}, nil, fmt.Errorf("unknown block %q: one of provider, chain, billing", e.Block)
	}
	f, ok := fieldFor(e.Block, e.Field)
	if !ok {
		return place{}, nil, fmt.Errorf("unknown %s field %q", e.Block, e.Field)
	}
	path := []blockRef{top}
	if f.nested != "" {
		path = append(path, blockRef{typ: f.nested})
	}
	p := place{path: path, attr: f.attr, removed: isNull(e.Value)}
	if f.wholeBlock {
		p.attr = ""
	}
	if len(bytes.TrimSpace(e.Value)) == 0 {
		return place{}, nil, errors.New("no value: give one, or null to remove the field")
	}
	if !json.Valid(e.Value) {
		return place{}, nil, errors.New("the value is not JSON")
	}

	switch {
	case p.removed && f.wholeBlock:
		return p, []step{removeBlock(path)}, nil
	case p.removed && f.nested != "":
		// An emptied pricing or billing block says nothing: it goes too.
		return p, []step{removeAttr(path, f.attr), dropIfEmpty(path)}, nil
	case p.removed:
		return p, []step{removeAttr(path, f.attr)}, nil
	case e.Field == "classifier":
		steps, err := classifierSteps(path, e.Value)
		return p, steps, err
	}
	expr, err := f.decode(e.Value)
	if err != nil {
		return place{}, nil, err
	}
	return p, []step{ensureBlocks(path), setAttr(path, f.attr, expr)}, nil
}

// classifierSteps writes classifier { provider = provider.x, timeout = "2s" }
// from {"provider": "x", "timeout": "2s"}; a key left out or null removes
// that attribute, and attributes the panel does not edit stay.
func classifierSteps(path []blockRef, v json.RawMessage) ([]step, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(v, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf(`the value must be an object such as {"provider": "ollama", "timeout": "2s"}`)
	}
	for k := range obj {
		if k != "provider" && k != "timeout" {
			return nil, fmt.Errorf("unknown classifier key %q: one of provider, timeout", k)
		}
	}
	steps := []step{ensureBlocks(path)}
	for _, a := range []struct {
		name   string
		decode decoder
	}{{"provider", providerValue}, {"timeout", stringValue}} {
		raw, ok := obj[a.name]
		if !ok || isNull(raw) {
			steps = append(steps, removeAttr(path, a.name))
			continue
		}
		expr, err := a.decode(raw)
		if err != nil {
			return nil, fmt.Errorf("classifier %s: %w", a.name, err)
		}
		steps = append(steps, setAttr(path, a.name, expr))
	}
	return steps, nil
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

func boolValue(v json.RawMessage) (hclwrite.Tokens, error) {
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		return nil, errors.New("the value must be true or false")
	}
	return hclwrite.TokensForValue(cty.BoolVal(b)), nil
}

func stringValue(v json.RawMessage) (hclwrite.Tokens, error) {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, errors.New("the value must be a string")
	}
	return hclwrite.TokensForValue(cty.StringVal(s)), nil
}

func numberValue(v json.RawMessage) (hclwrite.Tokens, error) {
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return nil, errNotNumber
	}
	n, ok := x.(json.Number)
	if !ok {
		return nil, errNotNumber
	}
	// Parsed from the JSON text, not a float64, so 0.11 is written 0.11.
	num, err := cty.ParseNumberVal(n.String())
	if err != nil {
		return nil, errNotNumber
	}
	return hclwrite.TokensForValue(num), nil
}

var errNotNumber = errors.New("the value must be a number")

// stringList reads a JSON array of strings; a null entry is not a string.
func stringList(v json.RawMessage) ([]string, error) {
	var ps []*string
	if err := json.Unmarshal(v, &ps); err != nil || ps == nil || slices.Contains(ps, nil) {
		return nil, errors.New("the value must be an array of strings")
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = *p
	}
	return out, nil
}

func stringsValue(v json.RawMessage) (hclwrite.Tokens, error) {
	ss, err := stringList(v)
	if err != nil {
		return nil, err
	}
	vals := make([]cty.Value, len(ss))
	for i, s := range ss {
		vals[i] = cty.StringVal(s)
	}
	return hclwrite.TokensForValue(cty.TupleVal(vals)), nil
}

// providersValue writes ["a", "b"] as [provider.a, provider.b].
func providersValue(v json.RawMessage) (hclwrite.Tokens, error) {
	names, err := stringList(v)
	if err != nil {
		return nil, errors.New("the value must be an array of provider names")
	}
	elems := make([]hclwrite.Tokens, len(names))
	for i, n := range names {
		t, err := providerRef(n)
		if err != nil {
			return nil, err
		}
		elems[i] = t
	}
	return hclwrite.TokensForTuple(elems), nil
}

func providerValue(v json.RawMessage) (hclwrite.Tokens, error) {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, errors.New("the value must be a provider name")
	}
	return providerRef(s)
}

// providerRef is the traversal provider.<name>. TokensForTraversal writes
// the name as it is, so it must be an identifier: anything else would be
// source text, not a name.
func providerRef(name string) (hclwrite.Tokens, error) {
	if !hclsyntax.ValidIdentifier(name) {
		return nil, fmt.Errorf("%q is not a provider name (letters, digits, _ and -, not starting with a digit)", name)
	}
	return hclwrite.TokensForTraversal(hcl.Traversal{
		hcl.TraverseRoot{Name: "provider"},
		hcl.TraverseAttr{Name: name},
	}), nil
}
