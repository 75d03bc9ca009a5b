package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// TestURLServer: a streamable HTTP server is reached through the egress
// alone, its tools offered and called like a command's.
func TestURLServer(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := newTestServer(release)
	egress := sdktest.NewFakeEgress(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(func() { close(release) }) // before the fake's server closes: a cancelled wait may not have heard of it
	values, _ := json.Marshal(map[string]any{"url": "https://mcp.example.com/mcp", "timeout": "2s"})
	m := &mcpTool{}
	if err := m.Configure(context.Background(), sdk.Config{Values: values, Egress: egress}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	defer m.Close()
	specs, _ := m.Tools(context.Background())
	if len(specs) == 0 {
		t.Fatal("no tools")
	}
	res, err := call(t, m, "echo", `{"text":"over http"}`)
	if err != nil || sdk.TextOf(res.Content) != "echo: over http" {
		t.Fatalf("echo: %+v, %v", res, err)
	}
	if res, err := call(t, m, "fail", `{}`); err != nil || !res.IsError {
		t.Errorf("fail: %+v, %v", res, err)
	}
	if _, err := call(t, m, "wait", `{}`); !errors.Is(err, sdk.ErrTimeout) {
		t.Errorf("wait: %v, want a timeout", err)
	}
	if res, err := call(t, m, "echo", `{"text":"again"}`); err != nil || sdk.TextOf(res.Content) != "echo: again" {
		t.Errorf("after the timeout: %+v, %v", res, err)
	}
	reqs := egress.Requests()
	if len(reqs) == 0 {
		t.Fatal("nothing went through the egress")
	}
	for _, r := range reqs {
		if !strings.HasPrefix(r.URL, "https://mcp.example.com/mcp") {
			t.Errorf("request to %s", r.URL)
		}
	}
}
