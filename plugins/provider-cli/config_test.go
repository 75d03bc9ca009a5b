package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// configure runs Configure with vals (schema defaults applied).
func configure(t *testing.T, vals map[string]any) (*cli, error) {
	t.Helper()
	raw, err := json.Marshal(vals)
	if err != nil {
		t.Fatal(err)
	}
	full, err := sdktest.ApplyDefaults(schema(), raw)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	p := &cli{}
	return p, p.Configure(context.Background(), sdk.Config{Values: full})
}

func TestConfigureRefuses(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	exe := filepath.Join(bin, "client")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	notExe := filepath.Join(bin, "data")
	if err := os.WriteFile(notExe, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	base := func(extra map[string]any) map[string]any {
		v := map[string]any{"command": []string{exe}}
		for k, x := range extra {
			v[k] = x
		}
		return v
	}
	for _, c := range []struct {
		name  string
		vals  map[string]any
		inMsg string
	}{
		{"no command", base(map[string]any{"command": []string{}}), "command"},
		{"empty argv[0]", base(map[string]any{"command": []string{""}}), "command"},
		{"relative argv[0]", base(map[string]any{"command": []string{"./client"}}), "absolute or a bare name"},
		{"argv[0] not found", base(map[string]any{"command": []string{"client"}, "path": "/nonexistent"}), "not found in path"},
		{"argv[0] not executable", base(map[string]any{"command": []string{notExe}}), "not an executable"},
		{"argv[0] a directory", base(map[string]any{"command": []string{bin}}), "not an executable"},
		{"a placeholder in argv[0]", base(map[string]any{"command": []string{"{model}"}}), "placeholder"},
		{"relative path entry", base(map[string]any{"command": []string{"client"}, "path": bin + ":bin"}), "not an absolute"},
		{"empty path entry", base(map[string]any{"command": []string{"client"}, "path": bin + "::/bin"}), "not an absolute"},
		{"{model} without a model", base(map[string]any{"command": []string{exe, "--model", "{model}"}}), "no model is configured"},
		{"a model that looks like a flag", base(map[string]any{"model": "-rf"}), "model"},
		{"{prompt} with stdin", base(map[string]any{"command": []string{exe, "{prompt}"}, "prompt_via": "stdin"}), "prompt_via is stdin"},
		{"unknown prompt_via", base(map[string]any{"prompt_via": "file"}), "prompt_via"},
		{"unknown parse", base(map[string]any{"parse": "xml"}), "parse"},
		{"json without text_path", base(map[string]any{"parse": "json"}), "needs text_path"},
		{"json with result_path", base(map[string]any{"parse": "json", "text_path": "a", "result_path": "b"}), "result_path is for"},
		{"jsonl without a path", base(map[string]any{"parse": "jsonl"}), "needs text_path"},
		{"a path with text", base(map[string]any{"error_path": "is_error"}), "parse = text"},
		{"a bad path", base(map[string]any{"parse": "json", "text_path": "a..b"}), "text_path"},
		{"a bad regexp", base(map[string]any{"auth_patterns": []string{"("}}), "auth_patterns"},
		{"a bad quota regexp", base(map[string]any{"quota_patterns": []string{"[a"}}), "quota_patterns"},
		{"exit code 0", base(map[string]any{"auth_exit_codes": []int{0}}), "auth_exit_codes"},
		{"exit code 256", base(map[string]any{"quota_exit_codes": []int{256}}), "quota_exit_codes"},
		{"env HOME", base(map[string]any{"env": map[string]string{"HOME": "/x"}}), "HOME"},
		{"env PATH", base(map[string]any{"env": map[string]string{"PATH": "/x"}}), "PATH"},
		{"env https_proxy", base(map[string]any{"env": map[string]string{"https_proxy": "http://x"}}), "https_proxy"},
		{"env HTTP_PROXY", base(map[string]any{"env": map[string]string{"HTTP_PROXY": "http://x"}}), "HTTP_PROXY"},
		{"env all_proxy", base(map[string]any{"env": map[string]string{"all_proxy": "socks5://x"}}), "all_proxy"},
		{"env NO_PROXY", base(map[string]any{"env": map[string]string{"NO_PROXY": "*"}}), "NO_PROXY"},
		{"env no_proxy", base(map[string]any{"env": map[string]string{"no_proxy": "*"}}), "no_proxy"},
		{"env a name with =", base(map[string]any{"env": map[string]string{"A=B": "x"}}), "not a variable name"},
		{"scrub_env an empty name", base(map[string]any{"scrub_env": []string{""}}), "scrub_env"},
		{"a bad timeout", base(map[string]any{"timeout": "soon"}), "timeout"},
		{"a zero timeout", base(map[string]any{"timeout": "0s"}), "timeout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := configure(t, c.vals)
			if !errors.Is(err, sdk.ErrPermanent) || !strings.Contains(err.Error(), c.inMsg) {
				t.Errorf("Configure: %v, want a permanent error with %q", err, c.inMsg)
			}
		})
	}
}

func TestConfigure(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "client"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := configure(t, map[string]any{
		"command": []string{"client", "--model", "{model}"},
		"path":    "/nonexistent:" + bin,
		"model":   "sonnet",
		"timeout": "90s",
	})
	if err != nil {
		t.Fatalf("Configure: %v", err)
	}
	s := p.s
	got := []any{s.argv, s.path, s.model, s.parse, s.promptVia, s.timeout, s.hasPrompt, s.needsModel}
	want := []any{[]string{filepath.Join(bin, "client"), "--model", "{model}"}, "/nonexistent:" + bin, "sonnet", parseText, viaArg, 90 * time.Second, false, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	models, _ := p.Models(context.Background())
	if diff := cmp.Diff([]sdk.Model{{ID: "sonnet"}}, models); diff != "" {
		t.Errorf("Models (-want +got):\n%s", diff)
	}
}

// TestSchemaNames: the host's presets fill the attributes by these names.
func TestSchemaNames(t *testing.T) {
	t.Parallel()
	var names []string
	for _, a := range schema().Attributes {
		names = append(names, a.Name+" "+a.Type)
	}
	want := []string{
		"command list(string)", "path string", "model string", "parse string", "text_path string", "result_path string",
		"error_path string", "input_tokens_path string", "output_tokens_path string", "auth_patterns list(string)",
		"quota_patterns list(string)", "auth_exit_codes list(number)", "quota_exit_codes list(number)",
		"scrub_env list(string)", "env map(string)", "timeout string", "prompt_via string",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("schema (-want +got):\n%s", diff)
	}
}

func TestChildEnv(t *testing.T) {
	t.Parallel()
	plugin := map[string]string{"HOME": "/home/block", "TMPDIR": "/tmp/p", "PLUGIN_PROTOCOL_VERSIONS": "1", "SECRET": "x"}
	for _, c := range []struct {
		name  string
		env   map[string]string
		scrub []string
		proxy string
		own   map[string]string
		want  []string
	}{
		{name: "the base", own: plugin,
			want: []string{"HOME=/home/block", "PATH=/usr/bin", "TMPDIR=/tmp/p"}},
		{name: "with the proxy", own: plugin, proxy: "http://127.0.0.1:41000",
			want: []string{"HOME=/home/block", "HTTPS_PROXY=http://127.0.0.1:41000", "PATH=/usr/bin", "TMPDIR=/tmp/p", "https_proxy=http://127.0.0.1:41000"}},
		{name: "env added, scrub_env last", own: plugin, env: map[string]string{"SSL_CERT_FILE": "/ca.pem", "TOKEN": "t", "TMPDIR": "/other"},
			scrub: []string{"TOKEN", "HOME", "NOT_SET"},
			want:  []string{"PATH=/usr/bin", "SSL_CERT_FILE=/ca.pem", "TMPDIR=/other"}},
		{name: "unset HOME and TMPDIR stay unset", own: map[string]string{},
			want: []string{"PATH=/usr/bin"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := &settings{path: "/usr/bin", env: c.env, scrub: map[string]bool{}}
			for _, k := range c.scrub {
				s.scrub[k] = true
			}
			got := s.childEnv(func(k string) string { return c.own[k] }, c.proxy)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("env (-want +got):\n%s", diff)
			}
		})
	}
}
