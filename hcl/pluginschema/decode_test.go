package pluginschema

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

var sortStrings = cmpopts.SortSlices(func(a, b string) bool { return a < b })

// providerSchema is shaped like a real provider plugin's declared schema.
var providerSchema = sdk.Schema{Attributes: []sdk.Attribute{
	{Name: "base_url", Type: "string", Required: true, Description: "Where the API lives."},
	{Name: "model", Type: "string", Required: true, Description: "The model to ask."},
	{Name: "max_tokens", Type: "number", Default: json.RawMessage(`4096`)},
	{Name: "stream", Type: "bool", Default: json.RawMessage(`true`)},
	{Name: "stop", Type: "list(string)"},
	{Name: "headers", Type: "map(string)"},
	{Name: "temperature", Type: "number"},
}}

// diagLine is the parts of a diagnostic a user reads: severity, summary,
// the line it points at, and a fragment of the detail.
type diagLine struct {
	Error   bool
	Summary string
	Line    int
}

func summarize(diags hcl.Diagnostics) []diagLine {
	var out []diagLine
	for _, d := range diags {
		line := 0
		if d.Subject != nil {
			line = d.Subject.Start.Line
		}
		out = append(out, diagLine{Error: d.Severity == hcl.DiagError, Summary: d.Summary, Line: line})
	}
	return out
}

func parseBody(t *testing.T, src string) hcl.Body {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse: %s", diags)
	}
	return f.Body
}

func TestDecode(t *testing.T) {
	t.Parallel()
	upper := function.New(&function.Spec{
		Params: []function.Parameter{{Name: "s", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(strings.ToUpper(args[0].AsString())), nil
		},
	})
	ctx := &hcl.EvalContext{Functions: map[string]function.Function{"upper": upper}}

	tests := []struct {
		name       string
		schema     sdk.Schema
		src        string
		want       string
		wantDiags  []diagLine
		wantDetail []string // substrings of the joined details
	}{
		{
			name:   "required only, defaults applied, absent left out",
			schema: providerSchema,
			src: `base_url = "https://api.example.com/v1"
model = "m-1"
`,
			want: `{"base_url":"https://api.example.com/v1","max_tokens":4096,"model":"m-1","stream":true}`,
		},
		{
			name:   "every type, defaults overridden",
			schema: providerSchema,
			src: `base_url    = "https://api.example.com/v1"
model       = "m-1"
max_tokens  = 512
stream      = false
stop        = ["\n\n", "END"]
headers     = { "x-team" = "pets" }
temperature = 0.25
`,
			want: `{"base_url":"https://api.example.com/v1","headers":{"x-team":"pets"},"max_tokens":512,"model":"m-1","stop":["\n\n","END"],"stream":false,"temperature":0.25}`,
		},
		{
			name:   "values are converted to the declared type",
			schema: providerSchema,
			src: `base_url   = "https://api.example.com/v1"
model      = 7
max_tokens = "300"
stop       = [1, 2]
`,
			want: `{"base_url":"https://api.example.com/v1","max_tokens":300,"model":"7","stop":["1","2"],"stream":true}`,
		},
		{
			name:   "functions from the evaluation context",
			schema: providerSchema,
			src: `base_url = "https://api.example.com/v1"
model = upper("m-1")
`,
			want: `{"base_url":"https://api.example.com/v1","max_tokens":4096,"model":"M-1","stream":true}`,
		},
		{
			name:   "a path is a string, expanded by the caller, not here",
			schema: sdk.Schema{Attributes: []sdk.Attribute{{Name: "dir", Type: sdk.TypePath}, {Name: "tty", Type: sdk.TypePath, Default: sdk.Default("/dev/tty")}}},
			src:    `dir = "~/face"`,
			want:   `{"dir":"~/face","tty":"/dev/tty"}`,
		},
		{
			name:   "empty schema, empty body",
			schema: sdk.Schema{},
			src:    "",
			want:   `{}`,
		},
		{
			name:   "explicit null counts as absent",
			schema: providerSchema,
			src: `base_url = "https://api.example.com/v1"
model = "m"
max_tokens = null
`,
			want: `{"base_url":"https://api.example.com/v1","max_tokens":4096,"model":"m","stream":true}`,
		},
		{
			name:   "missing required attributes point at the block",
			schema: providerSchema,
			src: `
max_tokens = 10
`,
			wantDiags: []diagLine{
				{Error: true, Summary: `Missing required argument "base_url"`, Line: 1},
				{Error: true, Summary: `Missing required argument "model"`, Line: 1},
			},
			wantDetail: []string{`requires the argument "model" (string). The model to ask.`},
		},
		{
			name:   "unknown attribute suggests the nearest name",
			schema: providerSchema,
			src: `base_url = "https://api.example.com/v1"
model = "m"
max_tokns = 10
`,
			wantDiags:  []diagLine{{Error: true, Summary: "Unsupported argument", Line: 3}},
			wantDetail: []string{`An argument named "max_tokns" is not expected here. Did you mean "max_tokens"?`, "Valid arguments: base_url, model, max_tokens, stream, stop, headers, temperature."},
		},
		{
			name:       "unknown attribute with nothing close lists the valid names",
			schema:     sdk.Schema{Attributes: []sdk.Attribute{{Name: "greeting", Type: "string"}}},
			src:        "colour = \"red\"\n",
			wantDiags:  []diagLine{{Error: true, Summary: "Unsupported argument", Line: 1}},
			wantDetail: []string{`"colour" is not expected here. Valid arguments: greeting.`},
		},
		{
			name:       "a plugin without settings",
			schema:     sdk.Schema{},
			src:        "x = 1\n",
			wantDiags:  []diagLine{{Error: true, Summary: "Unsupported argument", Line: 1}},
			wantDetail: []string{"This plugin takes no arguments of its own."},
		},
		{
			name:   "blocks are refused",
			schema: providerSchema,
			src: `base_url = "u"
model = "m"
extra {
}
`,
			wantDiags:  []diagLine{{Error: true, Summary: "Unsupported block type", Line: 3}},
			wantDetail: []string{"Plugins take only arguments"},
		},
		{
			name:   "wrong type points at the value",
			schema: providerSchema,
			src: `base_url = "u"
model = "m"
max_tokens = "lots"
`,
			wantDiags:  []diagLine{{Error: true, Summary: "Incorrect attribute value type", Line: 3}},
			wantDetail: []string{"a number is required"},
		},
		{
			name: "invalid schema blames the plugin",
			schema: sdk.Schema{Attributes: []sdk.Attribute{
				{Name: "model", Type: "text"},
			}},
			src:        `model = "m"`,
			wantDiags:  []diagLine{{Error: true, Summary: "Plugin declares an invalid configuration schema", Line: 1}},
			wantDetail: []string{"This is a bug in the plugin"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, diags := Decode(parseBody(t, tc.src), tc.schema, ctx)
			if diff := cmp.Diff(tc.wantDiags, summarize(diags)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\n%s", diff, diags)
			}
			var details []string
			for _, d := range diags {
				details = append(details, d.Detail)
			}
			joined := strings.Join(details, "\n")
			for _, want := range tc.wantDetail {
				if !strings.Contains(joined, want) {
					t.Errorf("details %q do not contain %q", joined, want)
				}
			}
			if string(got) != tc.want {
				t.Errorf("Decode = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestDecodeMergedBodies covers the host's preset case: a second body
// supplies attributes the first one omits.
func TestDecodeMergedBodies(t *testing.T) {
	t.Parallel()
	user := parseBody(t, "model = \"mine\"\n")
	preset := parseBody(t, "base_url = \"https://preset.example\"\n")
	got, diags := Decode(hcl.MergeBodies([]hcl.Body{user, preset}), providerSchema, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var values map[string]any
	if err := json.Unmarshal(got, &values); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"base_url": "https://preset.example", "model": "mine", "max_tokens": 4096.0, "stream": true}
	if diff := cmp.Diff(want, values); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if !slices.Equal(summarize(diags), nil) {
		t.Errorf("unexpected diagnostics: %s", diags)
	}
}

func BenchmarkDecode(b *testing.B) {
	f, diags := hclsyntax.ParseConfig([]byte(`base_url = "https://api.example.com/v1"
model = "m-1"
stop = ["a", "b"]
`), "bench.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	for b.Loop() {
		if _, diags := Decode(f.Body, providerSchema, nil); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}
