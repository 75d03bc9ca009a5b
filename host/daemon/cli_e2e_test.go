package daemon

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/axonhq/axon/host/internal/testbin"
)

// The CLI adapter, claimed of real processes: the cli provider plugin in
// its sandbox runs the fake command-line client (host/internal/testcli),
// which reaches an HTTPS mock on 127.0.0.1 only through the host's proxy.

var (
	cliBinOnce sync.Once
	cliBinErr  error
)

// cliKey is the metered fallback's key: it must appear nowhere.
const cliKey = "sk-cli-fallback-canary-9e41"

type cliRig struct {
	*rig
	home       string // the sub block's client login directory
	streamHome string // the stream block's
	up         *httptest.Server
	outside    string // a host file the plugin is not granted
	keyFile    string // the fallback's credential
	otherURL   string // an HTTPS server off the allow list
}

func newCLIRig(t *testing.T) *cliRig {
	t.Helper()
	cliBinOnce.Do(func() {
		cliBinErr = testbin.BuildInto(binDir,
			testbin.Target{Name: "axon-provider-cli", Pkg: "../../plugins/provider-cli"},
			testbin.Target{Name: "axon-test-cli", Pkg: "../internal/testcli"},
		)
	})
	if cliBinErr != nil {
		t.Fatal(cliBinErr)
	}
	up := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "the subscription's API saw "+r.URL.Path+" auth="+r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
	}))
	t.Cleanup(up.Close)
	other := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "off the list") }))
	t.Cleanup(other.Close)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"from the api\"}}]}\n\n")
		io.WriteString(w, "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(api.Close)

	caDir, home, streamHome, plainHome := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: up.Certificate().Raw})
	ca = append(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: other.Certificate().Raw})...)
	if err := os.WriteFile(filepath.Join(caDir, "ca.pem"), ca, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(caDir, 0o755) // the jail's uid reads it
	login(t, home)
	login(t, streamHome)
	login(t, plainHome)
	outside := filepath.Join(t.TempDir(), "host-secret")
	if err := os.WriteFile(outside, []byte("not the plugin's"), 0o644); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "api.key")
	if err := os.WriteFile(keyFile, []byte(cliKey), 0o600); err != nil {
		t.Fatal(err)
	}
	client := filepath.Join(binDir, "axon-test-cli")
	// Each block has its own home: on a root host each is handed to its
	// own plugin's uid.
	block := func(name, format, home, extra string) string {
		return fmt.Sprintf(`
provider %q {
  preset  = "claude-code"
  command = [%q, "--output-format", %q, "-p", "{prompt}"]
  home    = %q
  timeout = "3s"
  env     = { SSL_CERT_FILE = %q }
  egress { allow = [%q] }
  grant { read_only = [%q, %q] }
%s}
`, name, client, format, home, filepath.Join(caDir, "ca.pem"), up.URL, client, caDir, extra)
	}
	text := block("sub", "json", home, "") + block("stream", "stream-json", streamHome, `  parse       = "jsonl"
  text_path   = "message.content.0.text"
  result_path = "result"
`) + fmt.Sprintf(`
provider "plain" {
  plugin         = "cli"
  command        = [%q, "-p", "{prompt}"]
  home           = %q
  timeout        = "3s"
  auth_patterns  = ["(?i)please run /login"]
  quota_patterns = ["(?i)usage limit reached"]
  egress { allow = [%q] }
  grant { read_only = [%q] }
}
chain "plain" {
  providers = [provider.plain, provider.api]
  retry { attempts = 1 }
}
`, client, plainHome, up.URL, client) + fmt.Sprintf(`
provider "api" {
  plugin     = "openai"
  base_url   = "%s/v1"
  model      = "m"
  credential = file(%q)
}
chain "sub" {
  providers = [provider.sub, provider.api]
  retry { attempts = 1 }
}
chain "stream" {
  providers = [provider.stream, provider.api]
  retry { attempts = 1 }
}
`, api.URL, keyFile)
	r := newRig(t, text, Options{NoFaces: true})
	return &cliRig{rig: r, home: home, streamHome: streamHome, up: up, outside: outside, otherURL: other.URL, keyFile: keyFile}
}

// login writes the fake client's login into home, as `claude login` would.
func login(t *testing.T, home string) {
	t.Helper()
	dir := filepath.Join(home, ".fakecli")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "credentials"), []byte("the client's own login"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// ask sends prompt through chain and returns the answer's text, the
// provider that gave it and the trail.
func (c *cliRig) ask(chain, prompt string, stream bool) (text, provider, trail string) {
	c.t.Helper()
	body, _ := json.Marshal(map[string]any{"model": chain, "stream": stream,
		"messages": []map[string]string{{"role": "user", "content": prompt}}})
	resp := c.post("/v1/chat/completions", string(body))
	if resp.status != 200 {
		c.t.Fatalf("%s %q: status %d %s (trail %s)", chain, prompt, resp.status, resp.body, resp.header.Get("X-Axon-Trail"))
	}
	if strings.Contains(resp.body, cliKey) {
		c.t.Errorf("%s %q: the answer holds the key", chain, prompt)
	}
	if stream {
		var sb strings.Builder
		for _, line := range strings.Split(resp.body, "\n") {
			var ev struct {
				Choices []struct {
					Delta struct{ Content string } `json:"delta"`
				} `json:"choices"`
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok && json.Unmarshal([]byte(data), &ev) == nil && len(ev.Choices) > 0 {
				sb.WriteString(ev.Choices[0].Delta.Content)
			}
		}
		text = sb.String()
	} else {
		text = chatText(c.t.(*testing.T), resp.body)
	}
	return text, resp.header.Get("X-Axon-Provider"), resp.header.Get("X-Axon-Trail")
}

// TestCLIAdapter: the subscription's client answers through a chain,
// streamed and not; every failure a real client shows is classified and
// the chain falls back; a hang is killed at the block's timeout.
func TestCLIAdapter(t *testing.T) {
	t.Parallel()
	c := newCLIRig(t)

	if text, p, _ := c.ask("sub", "echo hello", false); p != "sub" || text != "you said: echo hello" {
		t.Errorf("json, whole: %s answered %q", p, text)
	}
	resp := c.post("/v1/chat/completions", `{"model":"stream","stream":true,"messages":[{"role":"user","content":"echo streamed"}]}`)
	if n := strings.Count(resp.body, `"content":"`); n < 3 {
		t.Errorf("jsonl: %d content deltas, want the client's chunks as they came:\n%s", n, resp.body)
	}
	if text, p, _ := c.ask("stream", "echo streamed", true); p != "stream" || text != "you said: echo streamed" {
		t.Errorf("jsonl, streamed: %s answered %q", p, text)
	}

	if text, p, _ := c.ask("plain", "echo plainly", false); p != "plain" || text != "you said: echo plainly" {
		t.Errorf("text: %s answered %q", p, text)
	}

	for _, tc := range []struct{ chain, prompt, class string }{
		{"sub", "limit", "quota_exhausted"},
		{"plain", "limit", "quota_exhausted"},
		{"sub", "hang", "timeout"},
		{"sub", "crash", "transient"},
	} {
		text, p, trail := c.ask(tc.chain, tc.prompt, false)
		if p != "api" || text != "from the api" || !strings.Contains(trail, tc.chain+"#1 ") || !strings.Contains(trail, tc.class) {
			t.Errorf("%s %s: %s answered %q, trail %s; want the api after %s#1 %s", tc.chain, tc.prompt, p, text, trail, tc.chain, tc.class)
		}
	}
	os.Remove(filepath.Join(c.streamHome, ".fakecli", "credentials"))
	if text, p, trail := c.ask("stream", "echo are you there", true); p != "api" || text != "from the api" || !strings.Contains(trail, "auth_required") {
		t.Errorf("logged out: %s answered %q, trail %s; want the api after stream#1 auth_required", p, text, trail)
	}
	if strings.Contains(c.logs.String(), cliKey) {
		t.Error("the key is in the host's log")
	}
}

// TestCLIAdapterConfined: the client reaches its allowed host only through
// the host's proxy (which adds no credential and logs the tunnel); a host
// off the allow list, a direct connection and a file outside its grants
// all fail.
func TestCLIAdapterConfined(t *testing.T) {
	t.Parallel()
	c := newCLIRig(t)
	host := strings.TrimPrefix(c.up.URL, "https://")

	if text, _, _ := c.ask("sub", "reach "+c.up.URL+"/v1/messages", false); text != "reached "+c.up.URL+"/v1/messages: 200 the subscription's API saw /v1/messages auth=" {
		t.Errorf("through the proxy: %q", text)
	}
	// The open line is written before the client hears "200": the end's
	// line may come after the answer.
	if !strings.Contains(c.logs.String(), "egress: tunnel open: plugin=sub method=CONNECT host="+host) {
		t.Errorf("the tunnel to %s was not logged", host)
	}
	for _, tc := range []struct{ prompt, want string }{
		{"reach " + c.otherURL + "/", "unreachable " + c.otherURL + "/: "},
		{"direct " + host, "direct failed: "},
		{"read " + c.outside, "cannot read " + c.outside + ": "},
		{"env HTTPS_PROXY", "http://127.0.0.1:"},
		{"read " + c.keyFile, "cannot read " + c.keyFile + ": "},
	} {
		if text, p, _ := c.ask("sub", tc.prompt, false); p != "sub" || !strings.HasPrefix(text, tc.want) {
			t.Errorf("%s: %s answered %q, want %q…", tc.prompt, p, text, tc.want)
		}
	}
	if strings.Contains(c.logs.String(), cliKey) {
		t.Error("the key is in the host's log")
	}
}
