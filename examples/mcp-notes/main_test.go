package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNotes: the two tools, their annotations, and the call log, over the
// SDK's in-memory transport.
func TestNotes(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newServer(&store{root: root}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	hints := map[string]string{}
	for _, tl := range tools.Tools {
		a := tl.Annotations
		hints[tl.Name] = map[bool]string{true: "read-only", false: "writes"}[a != nil && a.ReadOnlyHint]
		if tl.Name == "append_note" && (a == nil || a.DestructiveHint == nil || !*a.DestructiveHint || a.IdempotentHint) {
			t.Errorf("append_note annotations %+v: want destructive, not idempotent", a)
		}
	}
	if hints["read_note"] != "read-only" || hints["append_note"] != "writes" || len(hints) != 2 {
		t.Errorf("tools: %v", hints)
	}

	callText := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	if got, isErr := callText("read_note", map[string]any{"note": "todo"}); !isErr || !strings.Contains(got, "no note") {
		t.Errorf("missing note: %q %v", got, isErr)
	}
	callText("append_note", map[string]any{"note": "todo", "text": "milk"})
	callText("append_note", map[string]any{"note": "todo", "text": "eggs"})
	if got, isErr := callText("read_note", map[string]any{"note": "todo"}); isErr || got != "milk\neggs\n" {
		t.Errorf("read: %q %v", got, isErr)
	}
	if got, isErr := callText("read_note", map[string]any{"note": "../etc/passwd"}); !isErr || !strings.Contains(got, "not a note name") {
		t.Errorf("escape: %q %v", got, isErr)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "calls.log"))
	if n := strings.Count(string(log), "\n"); n != 5 || strings.Count(string(log), "append_note todo") != 2 {
		t.Errorf("calls.log:\n%s", log)
	}
}
