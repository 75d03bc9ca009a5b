package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// chainEntry is one preset named in $AXON_CHAIN, with its place in the
// variable's value so a diagnostic can point at it.
type chainEntry struct {
	name string
	rng  hcl.Range
}

// axonChain turns $AXON_CHAIN ("glm,ollama,gemini") into configuration
// text: one provider per preset, keyed by <PRESET>_API_KEY (or the preset's
// own variable) and <PRESET>_MODEL, and chain "default" in the given order.
// Unknown presets, an empty list and a missing key or model are errors;
// blank and repeated entries are dropped with a warning. Key variables are
// only checked for presence: the generated configuration references them
// with env(), and their values are not kept.
func (l *Loader) axonChain(value string) ([]byte, hcl.Diagnostics) {
	l.files[chainEnvFile] = &hcl.File{Bytes: []byte(value)}
	entries, diags := splitChain(value)
	if len(entries) == 0 {
		return nil, diags.Append(&hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Empty AXON_CHAIN",
			Detail:   fmt.Sprintf("$AXON_CHAIN names no preset. Set it to a comma-separated list such as \"glm,ollama\", or unset it. Presets: %s.", strings.Join(PresetNames(), ", ")),
			Subject:  valueRange(value, 0, len(value)).Ptr(),
		})
	}

	billing, d := l.chainBilling()
	diags = append(diags, d...)
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	if billing {
		body.AppendNewBlock("axon", nil).Body().AppendNewBlock("billing", nil).Body().SetAttributeValue("enabled", cty.True)
	}
	var refs []hclwrite.Tokens
	for _, e := range entries {
		p, ok := LookupPreset(e.name)
		if !ok {
			diags = diags.Append(&hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Unknown preset in AXON_CHAIN",
				Detail:   fmt.Sprintf("There is no preset %q.%s Presets: %s.", e.name, didYouMean(e.name, PresetNames()), strings.Join(PresetNames(), ", ")),
				Subject:  e.rng.Ptr(),
			})
			continue
		}
		block := body.AppendNewBlock("provider", []string{p.Name}).Body()
		block.SetAttributeValue("preset", cty.StringVal(p.Name))
		if p.Tier == TierAPI {
			if billing {
				block.SetAttributeValue("enabled", cty.True)
			} else {
				diags = diags.Append(&hcl.Diagnostic{
					Severity: hcl.DiagWarning,
					Summary:  "Paid preset in AXON_CHAIN",
					Detail: fmt.Sprintf("Preset %q is billed per token, and the paid gate is closed: no request is sent to it. Set %s=on to use it as the last resort, after every unpaid preset of the chain failed.",
						p.Name, envBilling),
					Subject: e.rng.Ptr(),
				})
			}
		}
		if p.KeyEnv != "" {
			keyVar, d := l.chainKey(p, e.rng)
			diags = append(diags, d...)
			if keyVar != "" {
				block.SetAttributeRaw("credential", hclwrite.TokensForFunctionCall("env", hclwrite.TokensForValue(cty.StringVal(keyVar))))
			}
		}
		modelVar := p.envPrefix() + "_MODEL"
		if model, ok := l.lookupEnv(modelVar); ok && strings.TrimSpace(model) != "" {
			block.SetAttributeValue("model", cty.StringVal(strings.TrimSpace(model)))
		} else if p.Model == "" && p.needsModel() {
			diags = diags.Append(&hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Missing model for AXON_CHAIN preset",
				Detail:   fmt.Sprintf("Preset %q has no default model: set %s to the model to use.", p.Name, modelVar),
				Subject:  e.rng.Ptr(),
			})
		}
		refs = append(refs, hclwrite.TokensForTraversal(hcl.Traversal{hcl.TraverseRoot{Name: "provider"}, hcl.TraverseAttr{Name: p.Name}}))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	body.AppendNewBlock("chain", []string{DefaultChain}).Body().SetAttributeRaw("providers", hclwrite.TokensForTuple(refs))
	header := fmt.Sprintf("# Generated from AXON_CHAIN=%q.\n\n", value)
	return append([]byte(header), f.Bytes()...), diags
}

// envBilling opens the paid gate of the AXON_CHAIN chain: with it on, the
// generated configuration says axon { billing { enabled = true } } and
// enabled = true in every tier "api" preset's block.
const envBilling = "AXON_BILLING"

// chainBilling reads AXON_BILLING strictly: on/true/1 or off/false/0 (or
// unset); anything else is an error, never a yes.
func (l *Loader) chainBilling() (bool, hcl.Diagnostics) {
	v, _ := l.lookupEnv(envBilling)
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "1":
		return true, nil
	case "", "off", "false", "0":
		return false, nil
	}
	return false, hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Invalid AXON_BILLING",
		Detail:   fmt.Sprintf("$%s is %q; set it to on or off (unset is off).", envBilling, v),
	}}
}

// chainKey returns the variable that holds p's key: <PRESET>_API_KEY, else
// the preset's own (ZAI_API_KEY for glm). Only presence is checked.
func (l *Loader) chainKey(p Preset, rng hcl.Range) (string, hcl.Diagnostics) {
	vars := []string{p.envPrefix() + "_API_KEY"}
	if p.KeyEnv != vars[0] {
		vars = append(vars, p.KeyEnv)
	}
	for _, v := range vars {
		if val, ok := l.lookupEnv(v); ok && strings.TrimSpace(val) != "" {
			return v, nil
		}
	}
	want := vars[0]
	if len(vars) > 1 {
		want += " (or " + vars[1] + ")"
	}
	return "", hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Missing API key for AXON_CHAIN preset",
		Detail:   fmt.Sprintf("Preset %q needs a key: set %s. axon reads it only when it calls the provider and never prints it.", p.Name, want),
		Subject:  rng.Ptr(),
	}}
}

// splitChain splits the comma-separated value, lower-casing names and
// dropping blank and repeated entries with a warning.
func splitChain(value string) ([]chainEntry, hcl.Diagnostics) {
	var entries []chainEntry
	var diags hcl.Diagnostics
	seen := map[string]bool{}
	start := 0
	for i := 0; i <= len(value); i++ {
		if i < len(value) && value[i] != ',' {
			continue
		}
		raw := value[start:i]
		trimmed := strings.TrimSpace(raw)
		lead := start + len(raw) - len(strings.TrimLeft(raw, " \t"))
		if trimmed == "" {
			if len(value) > 0 {
				diags = diags.Append(&hcl.Diagnostic{
					Severity: hcl.DiagWarning,
					Summary:  "Blank AXON_CHAIN entry dropped",
					Detail:   "$AXON_CHAIN has an empty entry between commas; it is ignored.",
					Subject:  valueRange(value, start, i).Ptr(),
				})
			}
		} else {
			rng := valueRange(value, lead, lead+len(trimmed))
			name := strings.ToLower(trimmed)
			if seen[name] {
				diags = diags.Append(&hcl.Diagnostic{
					Severity: hcl.DiagWarning,
					Summary:  "Repeated AXON_CHAIN entry dropped",
					Detail:   fmt.Sprintf("%q appears earlier in $AXON_CHAIN; each preset is tried once.", name),
					Subject:  rng.Ptr(),
				})
			} else {
				seen[name] = true
				entries = append(entries, chainEntry{name: name, rng: rng})
			}
		}
		start = i + 1
	}
	return entries, diags
}

// valueRange is the range of bytes [from, to) of $AXON_CHAIN's value, for
// diagnostics printed against the pseudo-file chainEnvFile.
func valueRange(value string, from, to int) hcl.Range {
	return hcl.Range{Filename: chainEnvFile, Start: posAt(value, from), End: posAt(value, to)}
}

func posAt(value string, off int) hcl.Pos {
	line, col := 1, 1
	for _, r := range value[:off] {
		if r == '\n' {
			line, col = line+1, 1
			continue
		}
		col++
	}
	return hcl.Pos{Line: line, Column: col, Byte: off}
}
