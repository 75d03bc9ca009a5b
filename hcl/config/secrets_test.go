package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// TestCredentialsAreNeverRead: env() and file() build references only. The
// secrets exist in the environment and on disk, yet appear nowhere in the
// loaded configuration, the plugin values or any diagnostic, and env()
// never even looks the variable up.
func TestCredentialsAreNeverRead(t *testing.T) {
	t.Parallel()
	const envSecret = "sk-env-SECRET-4242"
	const fileSecret = "sk-file-SECRET-1717"
	dir := t.TempDir()
	keyFile := writeFile(t, filepath.Join(dir, "zai.key"), fileSecret)

	var mu sync.Mutex
	var looked []string
	env := map[string]string{"ZAI_API_KEY": envSecret, "OPENAI_API_KEY": envSecret, "GLM_API_KEY": envSecret}
	lookup := func(k string) (string, bool) {
		mu.Lock()
		looked = append(looked, k)
		mu.Unlock()
		v, ok := env[k]
		return v, ok
	}

	text := fmt.Sprintf(`
provider "a" {
  preset     = "glm"
  model      = "glm-4.6"
  credential = env("ZAI_API_KEY")
}
provider "b" {
  preset     = "openai"
  model      = "x"
  credential = file(%q)
  note       = env("OPENAI_API_KEY")
}
provider "c" {
  preset     = "openai"
  model      = "y"
  credential = file("/nonexistent/secret.key")
}
chain "default" {
  providers = [provider.a, provider.b, provider.c]
}
`, keyFile)
	path := writeFile(t, filepath.Join(dir, "axon.hcl"), text)

	l := NewLoader(Options{LookupEnv: lookup, HomeDir: dir, GOOS: "linux"})
	cfg, diags := l.Load(path)
	if diags.HasErrors() {
		t.Fatalf("Load: %s", render(t, l.Files(), diags))
	}
	for _, k := range looked {
		if k != envConfig && k != envChain {
			t.Errorf("the loader looked up %s", k)
		}
	}

	var out bytes.Buffer
	fmt.Fprintf(&out, "%v\n%+v\n%#v\n", cfg, *cfg, *cfg)
	schema := sdk.Schema{Attributes: []sdk.Attribute{
		{Name: "base_url", Type: "string"}, {Name: "model", Type: "string"}, {Name: "note", Type: "string"},
	}}
	for _, p := range cfg.Providers {
		fmt.Fprintf(&out, "%v %+v %#v %s\n", *p, p.Credential, p.Credential, p.Credential)
		values, d := DecodePluginBody(&p.PluginBlock, schema)
		if d.HasErrors() {
			t.Fatalf("decode %s: %v", p.Name, d)
		}
		out.Write(values)
	}
	b, _ := json.Marshal(cfg.Providers[0].Credential)
	out.Write(b)
	out.WriteString(render(t, l.Files(), diags))

	for _, secret := range []string{envSecret, fileSecret} {
		if strings.Contains(out.String(), secret) {
			t.Errorf("secret %q leaked into:\n%s", secret, out.String())
		}
	}
	// The references themselves are what the host resolves later.
	if got := cfg.Provider("a").Credential.String(); got != "env:ZAI_API_KEY" {
		t.Errorf("a: %s", got)
	}
	if got := cfg.Provider("b").Credential.String(); got != "file:"+keyFile {
		t.Errorf("b: %s", got)
	}
	if got := cfg.Provider("c").Credential.String(); got != "file:/nonexistent/secret.key" {
		t.Errorf("c: %s (a missing file must not fail loading: it is never opened)", got)
	}
}

// TestAxonChainNeverKeepsTheKey: AXON_CHAIN checks that a key variable is
// set, but the generated configuration only references it.
func TestAxonChainNeverKeepsTheKey(t *testing.T) {
	t.Parallel()
	const secret = "sk-chain-SECRET-9090"
	l := NewLoader(Options{LookupEnv: mapEnv(map[string]string{
		"AXON_CHAIN": "glm,gemini,openai", "GLM_API_KEY": secret, "GLM_MODEL": "g", "GEMINI_API_KEY": secret,
	})})
	cfg, diags := l.Load("")
	var out bytes.Buffer
	out.WriteString(render(t, l.Files(), diags))
	for name, f := range l.Files() {
		fmt.Fprintf(&out, "%s\n%s\n", name, f.Bytes)
	}
	if cfg != nil {
		fmt.Fprintf(&out, "%+v", *cfg)
	}
	if !diags.HasErrors() {
		t.Fatal("openai without a key should fail")
	}
	if strings.Contains(out.String(), secret) {
		t.Errorf("secret leaked:\n%s", out.String())
	}
}

func TestCredentialFunctions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, expr string
		dir, home  string
		want       string
		wantErr    string
	}{
		{name: "env", expr: `env("ZAI_API_KEY")`, want: "env:ZAI_API_KEY"},
		{name: "env rejects a bad name", expr: `env("A-B")`, wantErr: "is not an environment variable name"},
		{name: "file with ~", expr: `file("~/.config/axon/k")`, home: "/home/pi", want: "file:/home/pi/.config/axon/k"},
		{name: "file relative to the config", expr: `file("keys/k")`, dir: "/etc/axon", want: "file:/etc/axon/keys/k"},
		{name: "file absolute", expr: `file("/run/secrets/k")`, dir: "/etc/axon", want: "file:/run/secrets/k"},
		{name: "file cleans", expr: `file("/run/./secrets/../k")`, want: "file:/run/k"},
		{name: "file without home", expr: `file("~/k")`, wantErr: "home directory is unknown"},
		{name: "file ~user", expr: `file("~root/k")`, home: "/home/pi", wantErr: "~user paths are not supported"},
		{name: "file empty", expr: `file("")`, wantErr: "path is empty"},
		{name: "file with a trailing space", expr: `file("/run/secrets/k ")`, wantErr: "must not begin or end with white space"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := NewLoader(Options{HomeDir: tc.home, GOOS: "linux"})
			name := "axon.hcl"
			if tc.dir != "" {
				name = filepath.Join(tc.dir, "axon.hcl")
			}
			cfg, diags := l.Parse(name, []byte(`provider "p" {
  preset     = "openai"
  model      = "m"
  credential = `+tc.expr+`
}
chain "default" {
  providers = [provider.p]
}
`))
			if tc.wantErr != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.wantErr) {
					t.Errorf("diagnostics %v, want %q", diags, tc.wantErr)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if got := cfg.Providers[0].Credential.String(); got != tc.want {
				t.Errorf("credential = %q, want %q", got, tc.want)
			}
		})
	}
}
