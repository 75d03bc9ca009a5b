package config

import (
	"encoding/json"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

var openaiSchema = sdk.Schema{Attributes: []sdk.Attribute{
	{Name: "base_url", Type: "string", Required: true},
	{Name: "model", Type: "string", Required: true},
	{Name: "max_tokens", Type: "number", Default: json.RawMessage(`1024`)},
}}

func TestDecodePluginBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		block     string // provider "p" block body
		schema    sdk.Schema
		want      map[string]any
		wantDiags []string
	}{
		{
			name:   "preset fills base_url and model",
			block:  `preset = "ollama"`,
			schema: openaiSchema,
			want:   map[string]any{"base_url": "http://127.0.0.1:11434/v1", "model": "qwen2.5:3b", "max_tokens": 1024.0},
		},
		{
			name: "the block wins over the preset",
			block: `preset   = "ollama"
  base_url = "http://127.0.0.1:8080/v1"
  model    = "mine"
  max_tokens = 64`,
			schema: openaiSchema,
			want:   map[string]any{"base_url": "http://127.0.0.1:8080/v1", "model": "mine", "max_tokens": 64.0},
		},
		{
			name:   "preset values the plugin does not declare are not passed",
			block:  `preset = "ollama"`,
			schema: sdk.Schema{Attributes: []sdk.Attribute{{Name: "base_url", Type: "string"}}},
			want:   map[string]any{"base_url": "http://127.0.0.1:11434/v1"},
		},
		{
			name:      "required model without a preset default",
			block:     `preset = "glm"`,
			schema:    openaiSchema,
			wantDiags: []string{`error: Missing required argument "model" @/etc/axon/axon.hcl:1:14`},
		},
		{
			name: "host arguments never reach the plugin",
			block: `plugin     = "openai"
  base_url   = "https://api.example.com/v1"
  model      = "m"
  credential = env("K")
  sha256     = "00000000000000000000000000000000000000000000000000000000000000ff"
  tier       = "api"
  pricing {
    input_per_mtok = 1
  }`,
			schema: openaiSchema,
			want:   map[string]any{"base_url": "https://api.example.com/v1", "model": "m", "max_tokens": 1024.0},
		},
		{
			name: "unknown plugin argument suggests the nearest name",
			block: `preset = "ollama"
  max_tokns = 5`,
			schema:    openaiSchema,
			wantDiags: []string{"error: Unsupported argument @/etc/axon/axon.hcl:3:3"},
		},
		{
			name:   "a plugin that declares a host argument is refused",
			block:  `preset = "ollama"`,
			schema: sdk.Schema{Attributes: []sdk.Attribute{{Name: "credential", Type: "string"}}},
			wantDiags: []string{
				"error: Plugin declares a reserved argument @/etc/axon/axon.hcl:1:1",
			},
		},
		{
			name:      "a plugin with a broken schema is blamed",
			block:     `preset = "ollama"`,
			schema:    sdk.Schema{Attributes: []sdk.Attribute{{Name: "model", Type: "strng"}}},
			wantDiags: []string{"error: Plugin declares an invalid configuration schema @/etc/axon/axon.hcl:1:14"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := mustParse(t, "provider \"p\" {\n  "+tc.block+"\n}\nchain \"default\" {\n  providers = [provider.p]\n}\n")
			raw, diags := DecodePluginBody(&cfg.Provider("p").PluginBlock, tc.schema)
			if diff := cmp.Diff(tc.wantDiags, summaries(diags)); diff != "" {
				t.Fatalf("diagnostics (-want +got):\n%s\n%v", diff, diags)
			}
			if tc.want == nil {
				if raw != nil {
					t.Errorf("values %s returned alongside errors", raw)
				}
				return
			}
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodePluginBodyToolAndDisplay(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, `
provider "l" {
  preset = "ollama"
}
chain "default" {
  providers = [provider.l]
}
tool "dice" {
  sides = 20
  egress {
    allow = ["random.example"]
  }
}
display "png" {
  dir = "/tmp/frames"
}
`)
	schema := sdk.Schema{Attributes: []sdk.Attribute{{Name: "sides", Type: "number", Required: true}}}
	raw, diags := DecodePluginBody(&cfg.Tools[0].PluginBlock, schema)
	if diags.HasErrors() || string(raw) != `{"sides":20}` {
		t.Errorf("tool values = %s, %v", raw, diags)
	}
	raw, diags = DecodePluginBody(&cfg.Displays[0].PluginBlock, sdk.Schema{Attributes: []sdk.Attribute{{Name: "dir", Type: "string"}}})
	if diags.HasErrors() || string(raw) != `{"dir":"/tmp/frames"}` {
		t.Errorf("display values = %s, %v", raw, diags)
	}
}

// TestDecodePluginBodyExpandsPaths: a value the plugin declares a path
// reaches it with ~ expanded and made absolute against the configuration
// file's directory, as grant paths are; other strings reach it as written.
func TestDecodePluginBodyExpandsPaths(t *testing.T) {
	t.Parallel()
	schema := sdk.Schema{Attributes: []sdk.Attribute{
		{Name: "dir", Type: sdk.TypePath},
		{Name: "cache", Type: sdk.TypePath, Default: sdk.Default("~/.cache/face")},
		{Name: "label", Type: "string"},
	}}
	tests := []struct {
		name      string
		body      string // display "face" block body
		want      map[string]any
		wantDiags []string
	}{
		{
			name: "~ is the home directory",
			body: `dir = "~/face"`,
			want: map[string]any{"dir": testHome + "/face", "cache": testHome + "/.cache/face"},
		},
		{
			name: "a relative path is the configuration file's directory's",
			body: `dir = "frames/../face"`,
			want: map[string]any{"dir": "/etc/axon/face", "cache": testHome + "/.cache/face"},
		},
		{
			name: "an absolute path is cleaned, a string is left as written",
			body: "dir = \"/tmp//face/\"\n  label = \"~/face\"",
			want: map[string]any{"dir": "/tmp/face", "cache": testHome + "/.cache/face", "label": "~/face"},
		},
		{
			name: "an empty path is left for the plugin to judge",
			body: `dir = ""`,
			want: map[string]any{"dir": "", "cache": testHome + "/.cache/face"},
		},
		{
			name:      "~user is refused on its line",
			body:      "label = \"x\"\n  dir = \"~pi/face\"",
			wantDiags: []string{`error: Invalid value for "dir" @/etc/axon/axon.hcl:9:9`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := mustParse(t, "provider \"l\" {\n  preset = \"ollama\"\n}\nchain \"default\" {\n  providers = [provider.l]\n}\ndisplay \"face\" {\n  "+tc.body+"\n}\n")
			raw, diags := DecodePluginBody(&cfg.Displays[0].PluginBlock, schema)
			if diff := cmp.Diff(tc.wantDiags, summaries(diags)); diff != "" {
				t.Fatalf("diagnostics (-want +got):\n%s\n%v", diff, diags)
			}
			if tc.want == nil {
				if raw != nil {
					t.Errorf("values %s returned alongside errors", raw)
				}
				return
			}
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPluginPathAndBinary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind         sdk.Kind
		plugin, want string
	}{
		{sdk.KindProvider, "anthropic", "/usr/lib/axon/axon-provider-anthropic"},
		{sdk.KindTool, "dice", "/usr/lib/axon/axon-tool-dice"},
		{sdk.KindDisplay, "epd", "/usr/lib/axon/axon-display-epd"},
	}
	for _, tc := range tests {
		if got := PluginPath("/usr/lib/axon", tc.kind, tc.plugin); got != tc.want {
			t.Errorf("PluginPath(%s, %s) = %q, want %q", tc.kind, tc.plugin, got, tc.want)
		}
	}
}
