package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

func TestConformance(t *testing.T) {
	sdktest.ToolConformance(t, sdktest.ToolSuite{
		New:    func() sdk.Tool { return &mcpTool{} },
		Config: testValues(t, nil),
		Calls: []sdktest.ToolCase{
			{Name: "echo", Input: json.RawMessage(`{"text":"hi"}`), Check: func(t *testing.T, r sdk.ToolResult) {
				if got := sdk.TextOf(r.Content); r.IsError || got != "echo: hi" {
					t.Errorf("echo: %q (error %v)", got, r.IsError)
				}
			}},
		},
	})
}

// TestToolsOffered: the server's tools, with their descriptions and
// schemas, and the side-effect class their annotations imply, corrected
// by side_effects; a name no model accepts is not offered.
func TestToolsOffered(t *testing.T) {
	t.Parallel()
	m := configured(t, map[string]any{"side_effects": map[string]string{"plain": "idempotent", "echo": "unsafe"}})
	specs, err := m.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]sdk.SideEffect{}
	for _, s := range specs {
		got[s.Name] = s.SideEffect
		if s.Description == "" || !strings.Contains(string(s.InputSchema), `"type":"object"`) {
			t.Errorf("%s: description %q, schema %s", s.Name, s.Description, s.InputSchema)
		}
	}
	want := map[string]sdk.SideEffect{
		"echo": sdk.SideEffectUnsafe, // readOnlyHint, overridden
		"put":  sdk.SideEffectIdempotent, "delete": sdk.SideEffectUnsafe,
		"plain": sdk.SideEffectIdempotent, // no annotations, overridden
		"env":   sdk.SideEffectUnsafe, "fail": sdk.SideEffectUnsafe, "hang": sdk.SideEffectUnsafe,
		"crash": sdk.SideEffectUnsafe, "wait": sdk.SideEffectUnsafe, "rpcerror": sdk.SideEffectUnsafe, "garbage": sdk.SideEffectUnsafe, "flood": sdk.SideEffectUnsafe,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	for _, s := range specs {
		if s.Name == "echo" && !strings.Contains(string(s.InputSchema), `"text"`) {
			t.Errorf("echo's schema lost its property: %s", s.InputSchema)
		}
	}
}

func TestSideEffectOf(t *testing.T) {
	t.Parallel()
	yes := true
	for _, c := range []struct {
		name string
		a    *mcp.ToolAnnotations
		want sdk.SideEffect
	}{
		{"no annotations", nil, sdk.SideEffectUnsafe},
		{"empty", &mcp.ToolAnnotations{}, sdk.SideEffectUnsafe},
		{"read only", &mcp.ToolAnnotations{ReadOnlyHint: true}, sdk.SideEffectNone},
		{"read only wins over idempotent", &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}, sdk.SideEffectNone},
		{"idempotent", &mcp.ToolAnnotations{IdempotentHint: true}, sdk.SideEffectIdempotent},
		{"destructive", &mcp.ToolAnnotations{DestructiveHint: &yes}, sdk.SideEffectUnsafe},
		{"open world only", &mcp.ToolAnnotations{OpenWorldHint: &yes}, sdk.SideEffectUnsafe},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := sideEffectOf(c.a); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestConfigRefused: every block that cannot work is a permanent
// Configure error, before or at the server's start.
func TestConfigRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		values map[string]any
		want   string
	}{
		{"neither", map[string]any{}, "set command"},
		{"both", map[string]any{"command": []string{"/bin/true"}, "url": "https://example.com/mcp"}, "not both"},
		{"relative argv0", map[string]any{"command": []string{"bin/server"}}, "absolute or a bare name"},
		{"not found", map[string]any{"command": []string{"no-such-mcp-server"}}, "not found in path"},
		{"relative path", map[string]any{"command": []string{"x"}, "path": "bin"}, "not an absolute directory"},
		{"bad url", map[string]any{"url": "ftp://example.com"}, "http or https"},
		{"url with user", map[string]any{"url": "https://me:pw@example.com/mcp"}, "user information"},
		{"url without egress", map[string]any{"url": "https://example.com/mcp"}, "egress"},
		{"env on url", map[string]any{"url": "https://example.com/mcp", "env": map[string]string{"A": "b"}}, "env is for a command"},
		{"reserved env", map[string]any{"command": []string{"/bin/true"}, "env": map[string]string{"https_proxy": "x"}}, "set by the plugin"},
		{"bad timeout", map[string]any{"command": []string{"/bin/true"}, "timeout": "soon"}, "timeout"},
		{"bad side effect", map[string]any{"command": []string{"/bin/true"}, "side_effects": map[string]string{"x": "harmless"}}, "want none, idempotent or unsafe"},
		{"not a server", map[string]any{"command": []string{"/bin/true"}}, "cannot start the server"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b, _ := json.Marshal(c.values)
			err := (&mcpTool{}).Configure(context.Background(), sdk.Config{Values: b})
			if !errors.Is(err, sdk.ErrPermanent) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Configure: %v, want permanent %q", err, c.want)
			}
		})
	}
	t.Run("override of a tool the server lacks", func(t *testing.T) {
		t.Parallel()
		err := (&mcpTool{}).Configure(context.Background(), sdk.Config{Values: testValues(t, map[string]any{"side_effects": map[string]string{"ehco": "none"}})})
		if !errors.Is(err, sdk.ErrPermanent) || !strings.Contains(err.Error(), `"ehco"`) {
			t.Errorf("Configure: %v", err)
		}
	})
}

// TestServerEnvironment: the server sees HOME, TMPDIR, PATH and env, and
// nothing of the plugin's own environment.
func TestServerEnvironment(t *testing.T) {
	t.Setenv("AXON_SECRET_OF_THE_PLUGIN", "leak")
	m := configured(t, nil)
	res, err := call(t, m, "env", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, kv := range strings.Split(sdk.TextOf(res.Content), "\n") {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	if diff := cmp.Diff([]string{"HOME", "PATH", "TMPDIR", serverEnv}, names); diff != "" {
		t.Errorf("server environment (-want +got):\n%s", diff)
	}
}

// TestResults: a result with isError stays a result the model sees; an
// unknown tool and arguments that are not an object are refused as results.
func TestResults(t *testing.T) {
	t.Parallel()
	m := configured(t, nil)
	for _, c := range []struct {
		tool, input, want string
		isError           bool
	}{
		{"echo", `{"text":"hi"}`, "echo: hi", false},
		{"fail", `{}`, "no such page", true},
		{"nope", `{}`, `unknown tool "nope"`, true},
		{"echo", `[1]`, "invalid arguments", true},
		{"echo", `{"text":3}`, `validating /properties/text`, true}, // the server's own check
		{"rpcerror", `{}`, "the MCP server refused the call: the database is locked", true},
	} {
		res, err := call(t, m, c.tool, c.input)
		if err != nil {
			t.Errorf("%s %s: %v", c.tool, c.input, err)
			continue
		}
		if got := sdk.TextOf(res.Content); res.IsError != c.isError || !strings.Contains(got, c.want) || res.CallID != "c1" {
			t.Errorf("%s %s: %q (error %v, id %q), want %q (error %v)", c.tool, c.input, got, res.IsError, res.CallID, c.want, c.isError)
		}
	}
	// The server answered every one of those: it is the same process still.
	if res, err := call(t, m, "echo", `{"text":"again"}`); err != nil || sdk.TextOf(res.Content) != "echo: again" {
		t.Errorf("after the refusals: %+v, %v", res, err)
	}
}

// TestServerFailures: a server that crashes, hangs or breaks the protocol
// costs its call a classified error, and the next call finds a new server.
func TestServerFailures(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tool string
		want *sdk.Error
		text string
	}{
		{"crash", errServerExited, "the server exited"},
		{"hang", sdk.ErrTimeout, "no answer within 1s"},
		{"garbage", errServerFailed, "calling garbage"},
		{"flood", errServerFailed, "calling flood"},
	} {
		t.Run(c.tool, func(t *testing.T) {
			t.Parallel()
			m := configured(t, map[string]any{"timeout": "1s"})
			before := m.cur.proc.cmd.Process.Pid
			_, err := call(t, m, c.tool, `{}`)
			if !errors.Is(err, c.want) || !errors.Is(err, sdk.ErrTransient) || !strings.Contains(err.Error(), c.text) {
				t.Fatalf("%s: %v, want %v with %q", c.tool, err, c.want, c.text)
			}
			res, err := call(t, m, "echo", `{"text":"back"}`)
			if err != nil || sdk.TextOf(res.Content) != "echo: back" {
				t.Fatalf("next call: %+v, %v", res, err)
			}
			if after := m.cur.proc.cmd.Process.Pid; after == before {
				t.Errorf("the next call used the broken server (pid %d)", before)
			}
		})
	}
}

// TestCallerCancel: the caller's end is the call's error, and the server
// is replaced.
func TestCallerCancel(t *testing.T) {
	t.Parallel()
	m := configured(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := m.Call(ctx, sdk.Invocation{CallID: "c", Name: "hang", Input: json.RawMessage(`{}`)})
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	if res, err := call(t, m, "echo", `{"text":"x"}`); err != nil || res.IsError {
		t.Errorf("after a cancel: %+v, %v", res, err)
	}
}
