package cli

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// closedPort is an address on loopback nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestAskHintMatchesTheFailure: the hint after an unanswered chain says
// what to do about that failure, for that provider. In want, {config} is
// the configuration file's path; writeConfig's axon block takes its first
// four lines, so a provider block's header is on line 6.
func TestAskHintMatchesTheFailure(t *testing.T) {
	t.Parallel()
	refused := closedPort(t)
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte("sk-test-not-real"), 0o600); err != nil {
		t.Fatal(err)
	}
	unauthorized := openaiUpstream(t, 401, `{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}`)
	forbidden := openaiUpstream(t, 403, `{"error":{"message":"no access to model","type":"invalid_request_error"}}`)
	openaiSum, err := fileSHA256(filepath.Join(binDir, "axon-provider-openai"))
	if err != nil {
		t.Fatal(err)
	}
	zeros := strings.Repeat("0", 64)
	for _, c := range []struct {
		name, config string
		args         []string                          // before the prompt
		setup        func(t *testing.T, config string) // after the file is written
		want         []string                          // in the hint, in this order
	}{
		{name: "ollama not running", config: `
provider "local" {
  preset   = "ollama"
  base_url = "http://` + refused + `"
}
chain "default" { providers = [provider.local] }
`, want: []string{"is Ollama running at http://" + refused + "? Start it with `ollama serve`, and fetch the model once with `ollama pull qwen2.5:3b`."}},
		{name: "key refused", config: `
provider "mock" {
  plugin     = "openai"
  base_url   = "` + unauthorized.URL + `/v1"
  model      = "m"
  credential = file("` + keyFile + `")
}
chain "default" { providers = [provider.mock] }
`, want: []string{`provider "mock" refused the key (HTTP 401): it comes from the file ` + keyFile + ` ({config} line 10); check that it is this provider's key and still valid`}},
		{name: "key not allowed the model", config: `
provider "mock" {
  plugin     = "openai"
  base_url   = "` + forbidden.URL + `/v1"
  model      = "m"
  credential = file("` + keyFile + `")
}
chain "default" { providers = [provider.mock] }
`, want: []string{`provider "mock" refused the key (HTTP 403): it comes from the file ` + keyFile + ` ({config} line 10); check that the key may use model "m"`}},
		{name: "key unset", config: `
provider "mock" {
  plugin     = "openai"
  base_url   = "` + unauthorized.URL + `/v1"
  model      = "m"
  credential = env("MOCK_KEY_UNSET")
}
chain "default" { providers = [provider.mock] }
`, want: []string{`provider "mock"'s key is not set: the environment variable MOCK_KEY_UNSET ({config} line 10) is unset or empty: export it in the environment axon runs in.`}},
		{name: "key file missing", config: `
provider "mock" {
  plugin     = "openai"
  base_url   = "` + unauthorized.URL + `/v1"
  model      = "m"
  credential = file("` + keyFile + `.missing")
}
chain "default" { providers = [provider.mock] }
`, want: []string{`provider "mock"'s key is not set: the file ` + keyFile + `.missing ({config} line 10) is missing or unreadable: write the key there (mode 0600).`}},
		{name: "binary changed since axon plugins lock", config: chainConfig("http://" + refused),
			setup: func(t *testing.T, config string) {
				if code, out, errOut := run(t, nil, "plugins", "lock", "--config", config); code != 0 {
					t.Fatalf("lock: exit %d\n%s\n%s", code, out, errOut)
				}
				lock := filepath.Join(filepath.Dir(config), "axon.lock.hcl")
				text, err := os.ReadFile(lock)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(lock, []byte(strings.Replace(string(text), openaiSum, zeros, 1)), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{
				filepath.Join(binDir, "axon-provider-openai") + " does not match its pin: expected sha256 " + zeros,
				"(" + filepath.Join("{dir}", "axon.lock.hcl") + "), actual " + openaiSum + ".",
				"run `axon plugins lock` to pin the new binary",
			}},
		{name: "binary changed since pinned in its block", config: `
provider "mock" {
  plugin   = "openai"
  sha256   = "` + zeros + `"
  base_url = "http://` + refused + `/v1"
  model    = "m"
}
chain "default" { providers = [provider.mock] }
`, want: []string{
			"axon-provider-openai does not match its pin: expected sha256 " + zeros + ` (the sha256 in provider "mock", {config} line 6), actual ` + openaiSum + ".",
			"put the new sha256 in that block (`axon plugins lock` does not change a block's pin)",
		}},
		{name: "binary not installed", config: `
provider "mock" {
  plugin   = "opneai"
  base_url = "http://` + refused + `/v1"
  model    = "m"
}
chain "default" { providers = [provider.mock] }
`, args: []string{"--plugin-dir", pluginDirWithClock(t)},
			want: []string{`there is no axon-provider-opneai in plugin_dir `, ` for provider "mock" (plugin "opneai", {config} line 7; provider plugins installed there: openai): ` +
				"`axon plugins` lists the installed binaries"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := writeConfig(t, c.config)
			if c.setup != nil {
				c.setup(t, cfg)
			}
			code, _, errOut := run(t, nil, append(append([]string{"ask", "--config", cfg}, c.args...), "hi")...)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, errOut)
			}
			assertHint(t, errOut, cfg, c.want)
			if strings.Contains(errOut, "sk-test-not-real") {
				t.Errorf("the key reached stderr:\n%s", errOut)
			}
		})
	}
}

// TestAskHintNamesTheKeyVariable: a refused key read from the environment
// is named by its variable and the line that configures it. Not parallel:
// the egress reads the process environment.
func TestAskHintNamesTheKeyVariable(t *testing.T) {
	t.Setenv("AXON_TEST_HINT_KEY", "sk-test-not-real")
	unauthorized := openaiUpstream(t, 401, `{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}`)
	cfg := writeConfig(t, `
provider "mock" {
  plugin     = "openai"
  base_url   = "`+unauthorized.URL+`/v1"
  model      = "m"
  credential = env("AXON_TEST_HINT_KEY")
}
chain "default" { providers = [provider.mock] }
`)
	code, _, errOut := run(t, nil, "ask", "--config", cfg, "hi")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, errOut)
	}
	assertHint(t, errOut, cfg, []string{`provider "mock" refused the key (HTTP 401): it comes from the environment variable AXON_TEST_HINT_KEY ({config} line 10)`})
	if strings.Contains(errOut, "sk-test-not-real") {
		t.Errorf("the key reached stderr:\n%s", errOut)
	}
}

// TestAskHintForAnotherPluginAPI: a plugin built against an SDK that does
// not speak this axon's API is named, with how to rebuild it; the error
// above the hint says which API it speaks.
func TestAskHintForAnotherPluginAPI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugin := filepath.Join(dir, "axon-provider-old")
	build := exec.Command("go", "build", "-ldflags=-X main.apiVersions=v0", "-o", plugin, "../internal/testplugin")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as the other test plugins
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cfg := writeConfig(t, `
provider "old" { plugin = "old" }
chain "default" { providers = [provider.old] }
`)
	code, _, errOut := run(t, nil, "ask", "--plugin-dir", dir, "--config", cfg, "hi")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "the plugin speaks SDK API v0, this axon speaks "+sdk.APIVersion) {
		t.Errorf("the error does not name both APIs:\n%s", errOut)
	}
	assertHint(t, errOut, cfg, []string{plugin + " was built for another plugin API than this axon's (" + sdk.APIVersion + "): rebuild it against this axon's sdk",
		"and put it in plugin_dir " + dir + ", or run the axon release it was built for."})
}

// assertHint checks that stderr has a hint line holding want in order, with
// {config} and {dir} standing for the configuration file and its directory.
func assertHint(t *testing.T, errOut, config string, want []string) {
	t.Helper()
	_, hint, ok := strings.Cut(errOut, "\nhint: ")
	if !ok {
		t.Fatalf("no hint:\n%s", errOut)
	}
	hint, _, _ = strings.Cut(hint, "\n")
	rest := hint
	for _, w := range want {
		w = strings.NewReplacer("{config}", config, "{dir}", filepath.Dir(config)).Replace(w)
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("the hint lacks %q (in this order):\n%s", w, hint)
			return
		}
		rest = rest[i+len(w):]
	}
}
