package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectHTTP opens an MCP session on base's /mcp through client.
func connectHTTP(t *testing.T, base string, client *http.Client) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), frontDoorHangGuard)
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: client, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestMCPServeHTTP: `axon serve` serves the delegate tools at /mcp; with
// billing on a named api target answers, a task still never picks it, and
// the turns are in /v1/stats by source as delegate. Without a token a
// foreign Host is refused (DNS rebinding).
func TestMCPServeHTTP(t *testing.T) {
	buildAxon(t)
	f, text := newDelegateFleet(t)
	cfg := filepath.Join(t.TempDir(), "axon.hcl")
	head := fmt.Sprintf("axon {\n  listen     = \"127.0.0.1:0\"\n  state_dir  = %q\n  plugin_dir = %q\n  billing { enabled = true }\n}\n", t.TempDir(), binDir)
	if err := os.WriteFile(cfg, []byte(head+text), 0o600); err != nil {
		t.Fatal(err)
	}
	base, _ := startServe(t, cfg)
	cs := connectHTTP(t, base, &http.Client{Timeout: frontDoorHangGuard})

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 3 {
		t.Fatalf("tools: %v %v", tools, err)
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"a named api target with billing on", map[string]any{"prompt": "p", "target": "claude"}, "from claude"},
		{"a task never picks the api tier", map[string]any{"prompt": "p", "task": "code"}, "from llama"},
		{"task: the api tier alone fits", map[string]any{"prompt": "p", "task": "review"}, "Do this sub-task yourself"},
	} {
		if got, isErr := callTool(t, cs, "delegate", tc.args); isErr || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q (tool error %v), want %q", tc.name, got, isErr, tc.want)
		}
	}
	if got, isErr := callTool(t, cs, "delegate_local", map[string]any{"prompt": "p"}); isErr || !strings.Contains(got, "from qwen") {
		t.Errorf("delegate_local: %q (tool error %v)", got, isErr)
	}
	for _, body := range f.claude.requests() {
		if _, ok := body["tools"]; ok {
			t.Errorf("claude was sent tools: %v", body["tools"])
		}
	}

	// DNS rebinding: a foreign Host on the token-less loopback listener.
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Host = "evil.example:80"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if status, body := do(t, req); status != http.StatusForbidden || !strings.Contains(body, "forbidden_host") {
		t.Errorf("foreign Host: %d %s, want 403 forbidden_host", status, body)
	}

	// The facts, by source. The recorder writes them off the request path.
	waitFor(t, func() (bool, string) {
		req, _ := http.NewRequest(http.MethodGet, base+"/v1/stats?by=source", nil)
		_, body := do(t, req)
		var rep struct {
			Rows []struct {
				Key      string `json:"key"`
				Requests int64  `json:"requests"`
			} `json:"rows"`
		}
		_ = json.Unmarshal([]byte(body), &rep)
		return len(rep.Rows) == 1 && rep.Rows[0].Key == "delegate" && rep.Rows[0].Requests == 3, body
	})

	// A reload puts hidden on the menu: the same client sees it at once.
	flagged := strings.Replace(text, "tier = \"local\"\n}", "tier = \"local\"\n  can_delegate = true\n}", 1)
	if flagged == text {
		t.Fatal("the fleet's hidden block changed shape")
	}
	if err := os.WriteFile(cfg, []byte(head+flagged), 0o600); err != nil {
		t.Fatal(err)
	}
	reload, _ := http.NewRequest(http.MethodPost, base+"/v1/reload", nil)
	reload.Header.Set("X-Axon-Reload", "1")
	if status, body := do(t, reload); status != http.StatusOK {
		t.Fatalf("POST /v1/reload: %d %s", status, body)
	}
	tools, err = cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "delegate" && !strings.Contains(tl.Description, "- hidden: tier local") {
			t.Errorf("after the reload delegate's menu lacks hidden:\n%s", tl.Description)
		}
	}
	if got, isErr := callTool(t, cs, "delegate", map[string]any{"prompt": "p", "target": "hidden"}); isErr || !strings.Contains(got, "from hidden") {
		t.Errorf("after the reload, target hidden: %q (tool error %v)", got, isErr)
	}
}

// TestMCPServeToken: on a tokened listener /mcp without the token is
// refused, as the API routes are; with it, any Host is fine.
func TestMCPServeToken(t *testing.T) {
	buildAxon(t)
	_, text := newDelegateFleet(t)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "axon.hcl")
	head := fmt.Sprintf("axon {\n  listen     = \"0.0.0.0:0\"\n  token_file = %q\n  state_dir  = %q\n  plugin_dir = %q\n}\n", tokenFile, t.TempDir(), binDir)
	if err := os.WriteFile(cfg, []byte(head+text), 0o600); err != nil {
		t.Fatal(err)
	}
	listened, _ := startServe(t, cfg)
	u, err := url.Parse(listened)
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + net.JoinHostPort("127.0.0.1", u.Port())

	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if status, body := do(t, req); status != http.StatusUnauthorized || !strings.Contains(body, "invalid_api_key") {
		t.Errorf("/mcp without the token: %d %s, want 401 invalid_api_key", status, body)
	}

	client := &http.Client{Timeout: frontDoorHangGuard, Transport: bearer{token: "s3cret", host: "axon.lan"}}
	cs := connectHTTP(t, base, client)
	if got, isErr := callTool(t, cs, "delegate_targets", nil); isErr || !strings.Contains(got, `"id":"glm"`) {
		t.Errorf("delegate_targets with the token and a foreign Host: %q (tool error %v)", got, isErr)
	}
}

// bearer sends the token, and Host host.
type bearer struct{ token, host string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	r.Host = b.host
	return http.DefaultTransport.RoundTrip(r)
}

func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := (&http.Client{Timeout: frontDoorHangGuard}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitFor polls ok until it holds; the usage facts are written a moment
// after the answer, off the request path.
func waitFor(t *testing.T, ok func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(frontDoorHangGuard)
	for {
		done, last := ok()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not in time; last seen: %s", last)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
