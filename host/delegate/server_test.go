package delegate

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/sdk"
)

// fakeBroker answers every run with its providers joined, or fails.
type fakeBroker struct {
	menu []Target
	fail error

	mu   sync.Mutex
	runs [][]string
	jobs []Job
}

func (b *fakeBroker) Targets() []Target { return b.menu }

func (b *fakeBroker) Delegate(_ context.Context, providers []string, job Job) (*Answer, error) {
	b.mu.Lock()
	b.runs, b.jobs = append(b.runs, providers), append(b.jobs, job)
	b.mu.Unlock()
	if b.fail != nil {
		return &Answer{Trail: providers[0] + " auth"}, b.fail
	}
	return &Answer{Text: "done by " + providers[0], Provider: providers[0], Model: "m", Trail: providers[0] + " ok"}, nil
}

func connect(t *testing.T, b Broker) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := NewServer(b, Options{Version: "test"}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, c.(*mcp.TextContent).Text)
	}
	return strings.Join(parts, "\n"), res.IsError
}

func TestServerTools(t *testing.T) {
	t.Parallel()
	b := &fakeBroker{menu: menu}
	cs := connect(t, b)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	desc := ""
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Name == ToolAny {
			desc = tl.Description
		}
	}
	if diff := cmp.Diff([]string{ToolAny, ToolLocal, ToolTargets}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	for _, want := range []string{"- glm: tier sub, good at code, chat, free", "- claude: tier api, good at code, review, unknown (gated: paid)"} {
		if !strings.Contains(desc, want) {
			t.Errorf("delegate's description lacks %q:\n%s", want, desc)
		}
	}

	for _, tc := range []struct {
		name    string
		tool    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"local", ToolLocal, map[string]any{"prompt": "p", "max_tokens": 7}, "done by qwen", false},
		{"target", ToolAny, map[string]any{"prompt": "p", "target": "glm", "task": "summarize"}, "done by glm", false},
		{"task", ToolAny, map[string]any{"prompt": "p", "task": "code"}, "done by llama", false},
		{"default local", ToolAny, map[string]any{"prompt": "p"}, "done by qwen", false},
		{"no fit", ToolAny, map[string]any{"prompt": "p", "task": "poetry"}, "Do this sub-task yourself", false},
		{"gated", ToolAny, map[string]any{"prompt": "p", "target": "claude"}, "paid gate", true},
		{"unknown", ToolAny, map[string]any{"prompt": "p", "target": "x"}, "the menu: glm, qwen", true},
		{"empty prompt", ToolLocal, map[string]any{"prompt": " "}, "prompt is empty", true},
	} {
		got, isErr := call(t, cs, tc.tool, tc.args)
		if isErr != tc.isError || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q (error %v), want %q (error %v)", tc.name, got, isErr, tc.want, tc.isError)
		}
	}
	if b.jobs[0] != (Job{Prompt: "p", MaxTokens: 7}) {
		t.Errorf("first job %+v", b.jobs[0])
	}
	if diff := cmp.Diff([][]string{{"qwen", "llama"}, {"glm"}, {"llama", "glm"}, {"qwen", "llama"}}, b.runs); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
}

func TestServerFailureAndMenu(t *testing.T) {
	t.Parallel()
	b := &fakeBroker{
		menu: []Target{{ID: "glm", Tier: config.TierSub, Plugin: "openai", Input: f(0.6), Output: f(2.2)}},
		fail: sdk.Errorf(sdk.ClassAuthRequired, "HTTP 401"),
	}
	cs := connect(t, b)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == ToolAny && !strings.HasSuffix(tl.Description, "\n- glm: tier sub, $0.6 in, $2.2 out per MTok") {
			t.Errorf("delegate's description:\n%s", tl.Description)
		}
	}
	got, isErr := call(t, cs, ToolAny, map[string]any{"prompt": "p", "target": "glm"})
	if !isErr || !strings.Contains(got, "class auth_required") || !strings.Contains(got, "trail: glm auth") {
		t.Errorf("failure = %q (error %v), want a tool error with class and trail", got, isErr)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolTargets})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"targets": []any{map[string]any{"id": "glm", "tier": "sub", "good_at": []any{}, "cost": "$0.6 in, $2.2 out per MTok", "plugin": "openai"}}}
	if diff := cmp.Diff(want, res.StructuredContent); diff != "" {
		t.Errorf("menu (-want +got):\n%s", diff)
	}
}
