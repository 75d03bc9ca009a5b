package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/sdk"
)

// answer is one scripted model step.
type answer struct {
	text  string
	calls []sdk.ToolCall
	usage *sdk.Usage
	// hold, when set, blocks the step until it is closed or the call's
	// context ends; entered is closed when the step starts waiting.
	hold    chan struct{}
	entered chan struct{}
}

// model is a scripted provider: each Generate asks script for the answer
// to the request, given how many tool messages follow the last prompt (the
// step within the run, from 0). It is stateless across restarts, like a
// real model would be for the loop.
type model struct {
	script func(step int, req *sdk.Request) (answer, error)
	mu     sync.Mutex
	reqs   []*sdk.Request
}

var _ chain.Generator = (*model)(nil)

func (m *model) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	m.mu.Lock()
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	a, err := m.script(stepOf(req), req)
	if err != nil {
		return err
	}
	if a.hold != nil {
		if a.entered != nil {
			close(a.entered)
		}
		select {
		case <-a.hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	send := func(ev sdk.Event) error { return out.Send(ctx, ev) }
	if err := send(sdk.Event{Type: sdk.EventStart, Model: "fake-1"}); err != nil {
		return err
	}
	for _, w := range strings.SplitAfter(a.text, " ") {
		if w == "" {
			continue
		}
		if err := send(sdk.Event{Type: sdk.EventTextDelta, Text: w}); err != nil {
			return err
		}
	}
	for i, c := range a.calls {
		if err := send(sdk.Event{Type: sdk.EventToolCall, ToolCall: &c, Index: i}); err != nil {
			return err
		}
	}
	if a.usage != nil {
		if err := send(sdk.Event{Type: sdk.EventUsage, Usage: a.usage}); err != nil {
			return err
		}
	}
	finish := sdk.FinishStop
	if len(a.calls) > 0 {
		finish = sdk.FinishToolCalls
	}
	return send(sdk.Event{Type: sdk.EventFinish, Finish: finish})
}

func (m *model) requests() []*sdk.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*sdk.Request(nil), m.reqs...)
}

// stepOf counts the tool messages after the last user message.
func stepOf(req *sdk.Request) int {
	n := 0
	for _, msg := range req.Messages {
		switch msg.Role {
		case sdk.RoleUser:
			n = 0
		case sdk.RoleTool:
			n++
		}
	}
	return n
}

// toolSteps answers steps 0..len(per)-1 with the given calls, then text.
func toolSteps(final string, per ...[]sdk.ToolCall) func(int, *sdk.Request) (answer, error) {
	return func(step int, _ *sdk.Request) (answer, error) {
		if step < len(per) {
			return answer{text: fmt.Sprintf("step %d ", step+1), calls: per[step], usage: usage(10, 5)}, nil
		}
		return answer{text: final, usage: usage(10, 5)}, nil
	}
}

func call(id, name, input string) sdk.ToolCall {
	return sdk.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}
}

func usage(in, out int64) *sdk.Usage {
	return &sdk.Usage{InputTokens: sdk.Tokens(in), OutputTokens: sdk.Tokens(out)}
}

// chains serves one chain, "default", of one hop, "fake".
type chains struct{ c *chain.Chain }

func (c chains) Chain(name string) (*chain.Chain, error) {
	if name != c.c.Name {
		return nil, fmt.Errorf("no such chain %q", name)
	}
	return c.c, nil
}

func oneHop(g chain.Generator) chains {
	return chains{&chain.Chain{Name: "default", Hops: []chain.Hop{{Name: "fake", Provider: g, Model: "fake-1"}},
		Policy: chain.Policy{Attempts: 1}}}
}

// tool is a fake tool block: it records every invocation and answers with
// call (or "ok <input>").
type tool struct {
	specs []sdk.ToolSpec
	call  func(ctx context.Context, inv sdk.Invocation) (sdk.ToolResult, error)
	mu    sync.Mutex
	invs  []sdk.Invocation
}

var _ Tool = (*tool)(nil)

func newTool(class sdk.SideEffect, names ...string) *tool {
	t := &tool{}
	for _, n := range names {
		t.specs = append(t.specs, sdk.ToolSpec{Name: n, Description: n, InputSchema: json.RawMessage(`{"type":"object"}`), SideEffect: class})
	}
	return t
}

func (t *tool) Tools(context.Context) ([]sdk.ToolSpec, error) { return t.specs, nil }

func (t *tool) Call(ctx context.Context, inv sdk.Invocation) (sdk.ToolResult, error) {
	t.mu.Lock()
	t.invs = append(t.invs, inv)
	t.mu.Unlock()
	if t.call != nil {
		return t.call(ctx, inv)
	}
	return sdk.ToolResult{CallID: inv.CallID, Name: inv.Name, Content: []sdk.Part{sdk.Text{Text: "ok " + string(inv.Input)}}}, nil
}

func (t *tool) invocations() []sdk.Invocation {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]sdk.Invocation(nil), t.invs...)
}

// rig is a Manager over a temporary state directory.
type rig struct {
	t     *testing.T
	dir   string
	model *model
	tools map[string]Tool
	m     *Manager
}

func newRig(t *testing.T, script func(int, *sdk.Request) (answer, error), tools map[string]Tool, mod ...func(*Options)) *rig {
	t.Helper()
	r := &rig{t: t, dir: t.TempDir(), model: &model{script: script}, tools: tools}
	r.m = r.start(mod...)
	return r
}

// start opens a new Manager on the rig's directory (after a restart).
func (r *rig) start(mod ...func(*Options)) *Manager {
	r.t.Helper()
	opts := Options{Dir: r.dir, Chains: oneHop(r.model), Tools: r.tools, IdleClose: 1 << 40, LookupEnv: func(string) (string, bool) { return "", false }}
	for _, f := range mod {
		f(&opts)
	}
	m, err := New(opts)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { m.Shutdown(context.Background()) })
	return m
}

var testKey = Key{ProjectRoot: "/tmp/project", Harness: "test", Session: "s1"}

// send admits a run and fails the test on error.
func (r *rig) send(p Params) Admitted {
	r.t.Helper()
	adm, err := r.m.Send(context.Background(), testKey, p)
	if err != nil {
		r.t.Fatalf("send: %v", err)
	}
	return adm
}

// wait follows the run until it finishes or pauses and returns its events.
func (r *rig) wait(adm Admitted) []Event {
	r.t.Helper()
	var evs []Event
	err := r.m.Follow(context.Background(), adm.SessionID, adm.After, FollowOptions{Run: adm.RunID}, func(it Item) error {
		evs = append(evs, *it.Event)
		return nil
	})
	if err != nil {
		r.t.Fatalf("follow: %v", err)
	}
	return evs
}

// transcript is every control event of the session.
func (r *rig) transcript(id string) []Event {
	r.t.Helper()
	p, err := r.m.Transcript(context.Background(), id, After(0), maxPage)
	if err != nil {
		r.t.Fatal(err)
	}
	return p.Events
}

func types(evs []Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

func intp(n int) *int { return &n }
