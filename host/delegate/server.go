package delegate

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/axonhq/axon/sdk"
)

// Job is one delegated sub-task. It carries no tools: a delegated call is
// a leaf.
type Job struct {
	Prompt    string
	MaxTokens int // 0: the provider's default
}

// Answer is what a Broker's run produced. Trail is the chain's decision
// trail (chain.TrailLine), there on a failure too.
type Answer struct {
	Text     string
	Provider string
	Model    string
	Trail    string
}

// Broker is axon as the delegate server needs it: the menu, and a chain
// run over chosen providers.
type Broker interface {
	// Targets lists the providers that set can_delegate = true, in
	// declared order, from the configuration new requests run on.
	Targets() []Target
	// Delegate runs job through a chain over providers, in that order,
	// with retry and fallback, recording its usage as a delegated turn.
	// The Answer is not nil on failure either: it carries the trail.
	Delegate(ctx context.Context, providers []string, job Job) (*Answer, error)
}

// Options name the server to its clients.
type Options struct {
	Version string // axon's version; "": the binary's module version
}

// Tool names.
const (
	ToolLocal   = "delegate_local"
	ToolAny     = "delegate"
	ToolTargets = "delegate_targets"
)

// NewServer is the delegate server over b, its menu read now: a new
// server (one per session over HTTP) sees a reloaded configuration.
func NewServer(b Broker, opts Options) *mcp.Server {
	menu := b.Targets()
	if opts.Version == "" {
		opts.Version = "unknown"
		if bi, ok := debug.ReadBuildInfo(); ok {
			opts.Version = bi.Main.Version
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "axon", Title: "axon delegate", Version: opts.Version},
		&mcp.ServerOptions{
			Instructions: "axon runs sub-tasks on the models it routes to. Prefer delegate_local for self-contained work a small local model can do; delegate with a task or a target for the rest.",
			Capabilities: &mcp.ServerCapabilities{},
		})
	h := handlers{b: b}
	mcp.AddTool(s, &mcp.Tool{
		Name: ToolLocal,
		Description: "Hand a self-contained sub-task to axon's free local models (tier local), " +
			"tried in the order configured, each falling back to the next. The prompt must stand on its own: " +
			"the model sees nothing else, and has no tools. Returns its answer as text.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, h.local)
	mcp.AddTool(s, &mcp.Tool{
		Name:        ToolAny,
		Description: describeDelegate(menu),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, h.delegate)
	mcp.AddTool(s, &mcp.Tool{
		Name:        ToolTargets,
		Description: "List the models axon may delegate to: id, tier, good_at, cost and plugin.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, h.targets)
	return s
}

func ptr[T any](v T) *T { return &v }

// describeDelegate is the delegate tool's description, the menu in it.
func describeDelegate(menu []Target) string {
	var b strings.Builder
	b.WriteString("Hand a self-contained sub-task to another model through axon; it has no tools and sees only the prompt. " +
		"With target, that model (an api-tier one only when axon's paid gate is open). " +
		"Else with task, the cheapest model good at it (local, then subscription; never a per-token api model). " +
		"Else the free local models. When nothing fits, the answer says so: then do the sub-task yourself.\nMenu:")
	if len(menu) == 0 {
		b.WriteString(" none (no provider sets can_delegate = true).")
	}
	for _, t := range menu {
		fmt.Fprintf(&b, "\n- %s: tier %s", t.ID, orNone(string(t.Tier)))
		if len(t.GoodAt) > 0 {
			fmt.Fprintf(&b, ", good at %s", strings.Join(t.GoodAt, ", "))
		}
		fmt.Fprintf(&b, ", %s", t.Cost())
		if t.Gate != "" {
			fmt.Fprintf(&b, " (gated: %s)", t.Gate)
		}
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "unset"
	}
	return s
}

// LocalInput is delegate_local's arguments.
type LocalInput struct {
	Prompt    string `json:"prompt" jsonschema:"the sub-task, self-contained: the model sees nothing else"`
	MaxTokens int    `json:"max_tokens,omitempty" jsonschema:"the longest answer in tokens; absent: the model's default"`
}

// DelegateInput is delegate's arguments.
type DelegateInput struct {
	Prompt    string `json:"prompt" jsonschema:"the sub-task, self-contained: the model sees nothing else"`
	Target    string `json:"target,omitempty" jsonschema:"a model of the menu by id; wins over task"`
	Task      string `json:"task,omitempty" jsonschema:"what the sub-task is (code, summarize, ...): picks the cheapest model good at it"`
	MaxTokens int    `json:"max_tokens,omitempty" jsonschema:"the longest answer in tokens; absent: the model's default"`
}

// Menu is delegate_targets' answer.
type Menu struct {
	Targets []MenuEntry `json:"targets"`
}

// MenuEntry is one model of the menu.
type MenuEntry struct {
	ID     string   `json:"id"`
	Tier   string   `json:"tier"`
	GoodAt []string `json:"good_at"`
	Cost   string   `json:"cost"`
	Plugin string   `json:"plugin"`
	Gate   string   `json:"gate,omitempty" jsonschema:"why axon will not call it (paid, disabled); absent when it will"`
}

type handlers struct{ b Broker }

func (h handlers) local(ctx context.Context, _ *mcp.CallToolRequest, in LocalInput) (*mcp.CallToolResult, any, error) {
	return h.run(ctx, DelegateInput{Prompt: in.Prompt, MaxTokens: in.MaxTokens}, true)
}

func (h handlers) delegate(ctx context.Context, _ *mcp.CallToolRequest, in DelegateInput) (*mcp.CallToolResult, any, error) {
	return h.run(ctx, in, false)
}

func (h handlers) targets(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, Menu, error) {
	m := Menu{Targets: []MenuEntry{}}
	for _, t := range h.b.Targets() {
		m.Targets = append(m.Targets, MenuEntry{ID: t.ID, Tier: string(t.Tier), GoodAt: nonNil(t.GoodAt), Cost: t.Cost(), Plugin: t.Plugin, Gate: t.Gate})
	}
	return nil, m, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// run plans the sub-task (only the local tier when local), then runs it.
// A failure is a tool error with its class and the trail, so the caller's
// model sees it.
func (h handlers) run(ctx context.Context, in DelegateInput, local bool) (*mcp.CallToolResult, any, error) {
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, nil, errors.New("prompt is empty: give the sub-task in full")
	}
	if in.MaxTokens < 0 {
		return nil, nil, fmt.Errorf("max_tokens is %d: want at least 1, or leave it out", in.MaxTokens)
	}
	menu := h.b.Targets()
	var plan Plan
	if local {
		plan = localPlan(menu)
	} else {
		var err error
		if plan, err = Choose(menu, Ask{Target: in.Target, Task: in.Task}); err != nil {
			return nil, nil, err
		}
	}
	if plan.Instruction != "" {
		return text(plan.Instruction), nil, nil
	}
	ans, err := h.b.Delegate(ctx, plan.Providers, Job{Prompt: in.Prompt, MaxTokens: in.MaxTokens})
	if ans == nil {
		ans = &Answer{}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("delegated call failed (class %s): %v; trail: %s", sdk.ClassOf(err), err, orNone(ans.Trail))
	}
	res := text(ans.Text)
	res.Content = append(res.Content, &mcp.TextContent{Text: fmt.Sprintf("[axon: answered by %s (%s); trail: %s]", ans.Provider, orNone(ans.Model), ans.Trail)})
	return res, nil, nil
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
