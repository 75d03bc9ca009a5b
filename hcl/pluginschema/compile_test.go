package pluginschema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"
)

func TestParseType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr    string
		want    cty.Type
		wantErr string
	}{
		{expr: "string", want: cty.String},
		{expr: "number", want: cty.Number},
		{expr: "bool", want: cty.Bool},
		{expr: "list(string)", want: cty.List(cty.String)},
		{expr: "map(string)", want: cty.Map(cty.String)},
		{expr: "set(number)", want: cty.Set(cty.Number)},
		{expr: "object({a = string, b = number})", want: cty.Object(map[string]cty.Type{"a": cty.String, "b": cty.Number})},
		{expr: "", wantErr: "type is empty"},
		{expr: "strin", wantErr: `type "strin" is not a valid type expression`},
		{expr: "list(", wantErr: `type "list(" does not parse`},
		{expr: "any", wantErr: `"any" cannot be used`},
		{expr: "list(any)", wantErr: `"any" cannot be used`},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			t.Parallel()
			got, err := ParseType(tc.expr)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseType(%q) error = %v, want one containing %q", tc.expr, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseType(%q): %v", tc.expr, err)
			}
			if !got.Equals(tc.want) {
				t.Errorf("ParseType(%q) = %s, want %s", tc.expr, got.FriendlyName(), tc.want.FriendlyName())
			}
		})
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	attr := func(name, ty string) sdk.Attribute { return sdk.Attribute{Name: name, Type: ty} }
	tests := []struct {
		name    string
		schema  sdk.Schema
		wantErr []string // substrings; nil means valid
	}{
		{name: "empty schema"},
		{
			name: "typical provider schema",
			schema: sdk.Schema{Attributes: []sdk.Attribute{
				{Name: "base_url", Type: "string", Required: true},
				{Name: "model", Type: "string", Required: true},
				{Name: "max_tokens", Type: "number", Default: json.RawMessage(`4096`)},
				{Name: "stop", Type: "list(string)", Default: json.RawMessage(`[]`)},
				{Name: "headers", Type: "map(string)"},
			}},
		},
		{
			name: "a path attribute, with a default",
			schema: sdk.Schema{Attributes: []sdk.Attribute{
				{Name: "dir", Type: sdk.TypePath, Required: true},
				{Name: "tty", Type: sdk.TypePath, Default: json.RawMessage(`"/dev/tty"`)},
			}},
		},
		{
			name:    "a path default must be a string",
			schema:  sdk.Schema{Attributes: []sdk.Attribute{{Name: "tty", Type: sdk.TypePath, Default: json.RawMessage(`["/dev/tty"]`)}}},
			wantErr: []string{`attribute "tty": default ["/dev/tty"] does not fit type path`},
		},
		{
			name:    "bad type expression",
			schema:  sdk.Schema{Attributes: []sdk.Attribute{attr("model", "strng")}},
			wantErr: []string{`attribute "model": type "strng" is not a valid type expression`},
		},
		{
			name:    "every problem is reported",
			schema:  sdk.Schema{Attributes: []sdk.Attribute{attr("a", "nope"), attr("b", "")}},
			wantErr: []string{`attribute "a"`, `attribute "b": type is empty`},
		},
		{
			name:    "name is not an identifier",
			schema:  sdk.Schema{Attributes: []sdk.Attribute{attr("base url", "string")}},
			wantErr: []string{`attribute "base url": name is not a valid HCL identifier`},
		},
		{
			name:    "duplicate name",
			schema:  sdk.Schema{Attributes: []sdk.Attribute{attr("model", "string"), attr("model", "string")}},
			wantErr: []string{`attribute "model" is declared twice`},
		},
		{
			name: "default does not fit type",
			schema: sdk.Schema{Attributes: []sdk.Attribute{
				{Name: "max_tokens", Type: "number", Default: json.RawMessage(`"many"`)},
			}},
			wantErr: []string{`attribute "max_tokens": default "many" does not fit type number`},
		},
		{
			name: "default is not JSON",
			schema: sdk.Schema{Attributes: []sdk.Attribute{
				{Name: "model", Type: "string", Default: json.RawMessage(`gpt`)},
			}},
			wantErr: []string{`attribute "model": default gpt does not fit type string`},
		},
		{
			name: "required with default",
			schema: sdk.Schema{Attributes: []sdk.Attribute{
				{Name: "model", Type: "string", Required: true, Default: json.RawMessage(`"x"`)},
			}},
			wantErr: []string{`attribute "model": a required attribute cannot have a default`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := Validate(tc.schema)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate succeeded, want an error")
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Validate error %q does not mention %q", err, want)
				}
			}
		})
	}
}

func TestSpecNames(t *testing.T) {
	t.Parallel()
	spec, err := Spec(sdk.Schema{Attributes: []sdk.Attribute{
		{Name: "model", Type: "string", Required: true},
		{Name: "max_tokens", Type: "number", Default: json.RawMessage(`1024`)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for name := range spec {
		got = append(got, name)
	}
	if diff := cmp.Diff([]string{"max_tokens", "model"}, got, sortStrings); diff != "" {
		t.Errorf("spec attributes (-want +got):\n%s", diff)
	}
	if _, err := Spec(sdk.Schema{Attributes: []sdk.Attribute{{Name: "x", Type: "what"}}}); err == nil {
		t.Error("Spec accepted an invalid schema")
	}
}
