package main

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// testValues is a block that runs this test binary as the server, with
// extra attributes merged in.
func testValues(t *testing.T, extra map[string]any) json.RawMessage {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	v := map[string]any{"command": []string{exe}, "env": map[string]string{serverEnv: "1"}, "timeout": "10s"}
	for k, x := range extra {
		v[k] = x
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// configured is the plugin configured against the test server, closed
// when the test ends.
func configured(t *testing.T, extra map[string]any) *mcpTool {
	t.Helper()
	tmp := t.TempDir()
	m := &mcpTool{getenv: func(k string) string {
		switch k {
		case "HOME", "TMPDIR":
			return tmp
		}
		return ""
	}}
	if err := m.Configure(context.Background(), sdk.Config{Values: testValues(t, extra)}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func call(t *testing.T, m *mcpTool, name, input string) (sdk.ToolResult, error) {
	t.Helper()
	return m.Call(context.Background(), sdk.Invocation{CallID: "c1", Name: name, Input: json.RawMessage(input), IdempotencyKey: "run:c1"})
}
