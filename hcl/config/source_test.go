package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func configText(provider string) string {
	return "provider \"" + provider + "\" {\n  preset = \"ollama\"\n}\nchain \"default\" {\n  providers = [provider." + provider + "]\n}\n"
}

// TestResolutionOrder: --config, then $AXON_CONFIG, then
// ~/.config/axon/axon.hcl, then the built-in default ($AXON_CHAIN when set).
func TestResolutionOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flagFile := writeFile(t, filepath.Join(dir, "flag.hcl"), configText("fromflag"))
	envFile := writeFile(t, filepath.Join(dir, "env.hcl"), configText("fromenv"))
	homeWith := filepath.Join(dir, "home-with")
	userFile := writeFile(t, filepath.Join(homeWith, ".config", "axon", "axon.hcl"), configText("fromuser"))
	homeWithout := filepath.Join(dir, "home-without")

	tests := []struct {
		name         string
		flag         string
		home         string
		env          map[string]string
		wantKind     SourceKind
		wantPath     string
		wantProvider string
		wantDiags    []string
	}{
		{name: "flag wins over everything", flag: flagFile, home: homeWith,
			env:      map[string]string{"AXON_CONFIG": envFile, "AXON_CHAIN": "ollama"},
			wantKind: SourceFlag, wantPath: flagFile, wantProvider: "fromflag",
			wantDiags: []string{"warning: AXON_CHAIN ignored"}},
		{name: "AXON_CONFIG wins over the user file", home: homeWith,
			env:      map[string]string{"AXON_CONFIG": envFile},
			wantKind: SourceEnv, wantPath: envFile, wantProvider: "fromenv"},
		{name: "empty AXON_CONFIG is unset", home: homeWith,
			env:      map[string]string{"AXON_CONFIG": ""},
			wantKind: SourceUser, wantPath: userFile, wantProvider: "fromuser"},
		{name: "user file", home: homeWith,
			wantKind: SourceUser, wantPath: userFile, wantProvider: "fromuser"},
		{name: "user file wins over AXON_CHAIN", home: homeWith,
			env:      map[string]string{"AXON_CHAIN": "ollama"},
			wantKind: SourceUser, wantPath: userFile, wantProvider: "fromuser",
			wantDiags: []string{"warning: AXON_CHAIN ignored"}},
		{name: "AXON_CHAIN when no file", home: homeWithout,
			env:      map[string]string{"AXON_CHAIN": "ollama"},
			wantKind: SourceAxonChain, wantProvider: "ollama"},
		{name: "built-in default", home: homeWithout,
			wantKind: SourceEmbedded, wantProvider: "ollama"},
		{name: "built-in default without a home", home: "",
			wantKind: SourceEmbedded, wantProvider: "ollama"},
		{name: "~ in AXON_CONFIG", home: homeWith,
			env:      map[string]string{"AXON_CONFIG": "~/.config/axon/axon.hcl"},
			wantKind: SourceEnv, wantPath: userFile, wantProvider: "fromuser"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := NewLoader(Options{LookupEnv: mapEnv(tc.env), HomeDir: tc.home, GOOS: "linux"})
			cfg, diags := l.Load(tc.flag)
			if diags.HasErrors() {
				t.Fatalf("Load: %s", render(t, l.Files(), diags))
			}
			if diff := cmp.Diff(tc.wantDiags, summaries(diags)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			if cfg.Source.Kind != tc.wantKind || cfg.Source.Path != tc.wantPath {
				t.Errorf("source = %d %q, want %d %q", cfg.Source.Kind, cfg.Source.Path, tc.wantKind, tc.wantPath)
			}
			if len(cfg.Providers) != 1 || cfg.Providers[0].Name != tc.wantProvider {
				t.Errorf("providers = %v, want only %q", cfg.Providers, tc.wantProvider)
			}
		})
	}
}

func TestResolutionErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.hcl")
	tests := []struct {
		name, flag string
		env        map[string]string
		wantErr    string
	}{
		{name: "missing --config file", flag: missing, wantErr: "--config: stat " + missing},
		{name: "missing AXON_CONFIG file", env: map[string]string{"AXON_CONFIG": missing}, wantErr: "$AXON_CONFIG: stat " + missing},
		{name: "--config is a directory", flag: dir, wantErr: "is not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := NewLoader(Options{LookupEnv: mapEnv(tc.env), HomeDir: dir})
			if _, err := l.Resolve(tc.flag); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Resolve error = %v, want %q", err, tc.wantErr)
			}
			cfg, diags := l.Load(tc.flag)
			if cfg != nil || !diags.HasErrors() || !strings.Contains(diags.Error(), tc.wantErr) {
				t.Errorf("Load = %v, %v; want an error mentioning %q", cfg, diags, tc.wantErr)
			}
		})
	}
}

func TestSourceString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src  Source
		want string
	}{
		{Source{Kind: SourceFlag, Path: "/a.hcl"}, "/a.hcl (--config)"},
		{Source{Kind: SourceEnv, Path: "/b.hcl"}, "/b.hcl ($AXON_CONFIG)"},
		{Source{Kind: SourceUser, Path: "/home/pi/.config/axon/axon.hcl"}, "/home/pi/.config/axon/axon.hcl"},
		{Source{Kind: SourceAxonChain}, "the chain in $AXON_CHAIN"},
		{Source{Kind: SourceEmbedded}, "the built-in default (local Ollama, no key)"},
	}
	for _, tc := range tests {
		if got := tc.src.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

// TestEmbeddedDefault: the built-in configuration needs no key and no
// network beyond loopback.
func TestEmbeddedDefault(t *testing.T) {
	t.Parallel()
	l := NewLoader(Options{HomeDir: t.TempDir(), GOOS: "linux"})
	cfg, diags := l.Load("")
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %s", render(t, l.Files(), diags))
	}
	if cfg.Source.Kind != SourceEmbedded {
		t.Fatalf("source = %v", cfg.Source)
	}
	chain := cfg.Chain(DefaultChain)
	if chain == nil {
		t.Fatal("no default chain")
	}
	for _, name := range chain.Providers {
		p := cfg.Provider(name)
		if !p.Credential.IsZero() {
			t.Errorf("provider %q needs a credential (%v)", name, p.Credential)
		}
		u, err := checkBaseURL(p.BaseURL())
		if err != nil || !isLoopback(u.Hostname()) {
			t.Errorf("provider %q reaches %q, not loopback", name, p.BaseURL())
		}
	}
	if _, ok := l.Files()[embeddedFile]; !ok {
		t.Error("the embedded file is not available for diagnostics")
	}
}

// TestRelativeConfigPathIsMadeAbsolute: `--config examples/x.hcl` names the
// file by an absolute path, so paths relative to it (plugin_dir = "../bin")
// stay valid for processes that do not share axon's working directory
// (the sandbox starts plugins from /).
func TestRelativeConfigPathIsMadeAbsolute(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "examples", "x.hcl"), configText("p"))
	t.Chdir(dir)
	l := NewLoader(Options{LookupEnv: mapEnv(nil), GOOS: "linux"})
	src, err := l.Resolve(filepath.Join("examples", "x.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "examples", "x.hcl"); src.Path != want {
		t.Errorf("Path = %q, want %q", src.Path, want)
	}
	if want := filepath.Join(dir, "examples"); src.Dir() != want {
		t.Errorf("Dir = %q, want %q", src.Dir(), want)
	}
}
