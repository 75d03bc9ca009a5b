package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/axonhq/axon/host/internal/testbin"
	"github.com/axonhq/axon/host/usage"
)

// The delegate server, claimed of a real `axon mcp` over stdio and a real
// `axon serve` at /mcp, through the official SDK's client, with real
// provider plugins in front of recording upstreams.

// recorder is an OpenAI-compatible upstream that answers text and keeps
// every request body.
type recorder struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
}

func recordingUpstream(t *testing.T, status int, text string) *recorder {
	t.Helper()
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body map[string]any
		b, _ := io.ReadAll(req.Body)
		_ = json.Unmarshal(b, &body)
		r.mu.Lock()
		r.bodies = append(r.bodies, body)
		r.mu.Unlock()
		if status != http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, `{"error":{"message":"no","type":"invalid_request_error"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"model\":\"m-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", text)
		io.WriteString(w, "data: {\"id\":\"c\",\"model\":\"m-1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) requests() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.bodies)
}

// delegateFleet is the providers of the delegate tests: glm (sub, good at
// code and chat) declared before the locals qwen (summarize) and llama
// (code), the api-tier claude (code, review), broken (its upstream
// refuses every request) and hidden, the one that cannot delegate.
type delegateFleet struct {
	glm, qwen, llama, claude, broken, hidden *recorder
}

func newDelegateFleet(t *testing.T) (*delegateFleet, string) {
	f := &delegateFleet{
		glm: recordingUpstream(t, 200, "from glm"), qwen: recordingUpstream(t, 200, "from qwen"),
		llama: recordingUpstream(t, 200, "from llama"), claude: recordingUpstream(t, 200, "from claude"),
		broken: recordingUpstream(t, 400, ""), hidden: recordingUpstream(t, 200, "from hidden"),
	}
	text := routedProvider("glm", f.glm.URL, "tier = \"sub\"\n  good_at = [\"code\", \"chat\"]\n  can_delegate = true") +
		routedProvider("qwen", f.qwen.URL, "tier = \"local\"\n  good_at = [\"summarize\"]\n  can_delegate = true") +
		routedProvider("llama", f.llama.URL, "tier = \"local\"\n  good_at = [\"code\"]\n  can_delegate = true") +
		routedProvider("claude", f.claude.URL, "tier = \"api\"\n  enabled = true\n  good_at = [\"code\", \"review\"]\n  can_delegate = true\n  pricing {\n    input_per_mtok = 3\n    output_per_mtok = 15\n  }") +
		routedProvider("broken", f.broken.URL, "tier = \"sub\"\n  can_delegate = true") +
		routedProvider("hidden", f.hidden.URL, "tier = \"local\"") +
		"chain \"default\" { providers = [provider.qwen, provider.hidden] }\n"
	return f, text
}

func buildAxon(t *testing.T) {
	t.Helper()
	frontDoorOnce.Do(func() {
		frontDoorErr = testbin.BuildInto(binDir,
			testbin.Target{Name: "axon", Pkg: "../cmd/axon"},
			testbin.Target{Name: "axon-provider-hostile", Pkg: "../internal/testplugin"},
		)
	})
	if frontDoorErr != nil {
		t.Fatal(frontDoorErr)
	}
}

// callTool calls tool and returns its text and whether it is a tool error.
func callTool(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), frontDoorHangGuard)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError
}

func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "axon-test", Version: "1"}, nil)
}

// TestMCPStdio: `axon mcp` lists the three tools with the menu in
// delegate's description, applies each precedence rule, refuses a named
// api target while billing is off, tells the caller to do a sub-task
// nothing fits itself, sends the model no tools, returns an exhausted
// chain as a tool error with its class and trail, and records every
// delegated turn with source delegate.
func TestMCPStdio(t *testing.T) {
	buildAxon(t)
	f, text := newDelegateFleet(t)
	stateDir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "axon.hcl")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("axon {\n  state_dir  = %q\n  plugin_dir = %q\n}\n", stateDir, binDir)+text), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(binDir, "axon"), "mcp", "--config", cfg)
	cmd.Env = []string{"HOME=" + t.TempDir()}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("axon mcp's log:\n%s", stderr.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), frontDoorHangGuard)
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			cs.Close()
		}
	}()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var desc string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Name == "delegate" {
			desc = tl.Description
		}
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "delegate,delegate_local,delegate_targets" {
		t.Errorf("tools %v", names)
	}
	for _, want := range []string{"- glm: tier sub, good at code, chat, free", "- qwen: tier local, good at summarize, free",
		"- claude: tier api, good at code, review, $3 in, $15 out per MTok (gated: paid)"} {
		if !strings.Contains(desc, want) {
			t.Errorf("delegate's description lacks %q:\n%s", want, desc)
		}
	}
	if strings.Contains(desc, "hidden") {
		t.Errorf("the menu offers a provider without can_delegate:\n%s", desc)
	}

	for _, tc := range []struct {
		name    string
		tool    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"delegate_local: the first local", "delegate_local", map[string]any{"prompt": "p1", "max_tokens": 7}, "from qwen", false},
		{"target wins over task", "delegate", map[string]any{"prompt": "p2", "target": "glm", "task": "summarize"}, "from glm", false},
		{"task: local before sub", "delegate", map[string]any{"prompt": "p3", "task": "code"}, "from llama", false},
		{"no target or task: local", "delegate", map[string]any{"prompt": "p4"}, "from qwen", false},
		{"task: never an api tier", "delegate", map[string]any{"prompt": "p5", "task": "review"}, "Do this sub-task yourself", false},
		{"no fit", "delegate", map[string]any{"prompt": "p6", "task": "poetry"}, "Do this sub-task yourself", false},
		{"a named api target behind the gate", "delegate", map[string]any{"prompt": "p7", "target": "claude"}, "paid gate", true},
		{"not on the menu", "delegate", map[string]any{"prompt": "p8", "target": "hidden"}, "the menu: glm, qwen, llama, claude, broken", true},
		{"an exhausted chain", "delegate", map[string]any{"prompt": "p9", "target": "broken"}, "class permanent", true},
	} {
		got, isErr := callTool(t, cs, tc.tool, tc.args)
		if isErr != tc.isError || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q (tool error %v), want %q (tool error %v)", tc.name, got, isErr, tc.want, tc.isError)
		}
		if tc.name == "an exhausted chain" && !strings.Contains(got, "trail: broken#1 fallback permanent/400") {
			t.Errorf("the exhausted chain's error lacks its trail: %q", got)
		}
	}

	menu, isErr := callTool(t, cs, "delegate_targets", nil)
	var m struct {
		Targets []struct {
			ID, Tier, Cost, Plugin string
			GoodAt                 []string `json:"good_at"`
			Gate                   string
		}
	}
	if err := json.Unmarshal([]byte(menu), &m); isErr || err != nil || len(m.Targets) != 5 {
		t.Fatalf("delegate_targets: %s (%v)", menu, err)
	}
	if c := m.Targets[3]; c.ID != "claude" || c.Tier != "api" || c.Plugin != "openai" || c.Gate != "paid" || c.Cost != "$3 in, $15 out per MTok" {
		t.Errorf("claude on the menu: %+v", c)
	}
	if q := m.Targets[1]; q.ID != "qwen" || q.Cost != "free" || !slices.Equal(q.GoodAt, []string{"summarize"}) {
		t.Errorf("qwen on the menu: %+v", q)
	}

	// Leaf only: the upstreams saw no tools; max_tokens reached qwen.
	for name, r := range map[string]*recorder{"glm": f.glm, "qwen": f.qwen, "llama": f.llama, "broken": f.broken} {
		reqs := r.requests()
		if len(reqs) == 0 {
			t.Errorf("%s was never called", name)
		}
		for _, body := range reqs {
			if _, ok := body["tools"]; ok {
				t.Errorf("%s was sent tools: %v", name, body["tools"])
			}
		}
	}
	if n := len(f.claude.requests()) + len(f.hidden.requests()); n != 0 {
		t.Errorf("claude or hidden was called %d times", n)
	}
	if first := f.qwen.requests()[0]; first["max_tokens"] != 7.0 && first["max_completion_tokens"] != 7.0 {
		t.Errorf("max_tokens did not reach the upstream: %v", first)
	}

	// The facts are written by the time axon mcp exits.
	if err := cs.Close(); err != nil {
		t.Errorf("axon mcp did not end cleanly when the client hung up: %v", err)
	}
	closed = true
	facts := readFacts(t, stateDir)
	var got []string
	for _, fact := range facts {
		got = append(got, fmt.Sprintf("%s %s %s %s", fact.Source, fact.Chain, orDash(fact.Provider), fact.Outcome))
	}
	want := []string{"delegate delegate qwen ok", "delegate delegate glm ok", "delegate delegate llama ok", "delegate delegate qwen ok", "delegate delegate - exhausted"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("facts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func readFacts(t *testing.T, stateDir string) []usage.Fact {
	t.Helper()
	ctx := context.Background()
	store, err := usage.Open(ctx, usage.Path(stateDir))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	facts, err := store.Facts(ctx, usage.Query{Since: time.Now().Add(-time.Hour), Until: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	return facts
}
