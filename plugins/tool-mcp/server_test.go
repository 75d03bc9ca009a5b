package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverEnv, set in a child's environment (through the block's env),
// makes this test binary an MCP server over stdio: the helper-process
// pattern, so the tests run a real child process.
const serverEnv = "TOOLMCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) != "" {
		serveTestServer()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type textIn struct {
	Text string `json:"text"`
}

type noIn struct{}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// serveTestServer serves tools that behave, and tools that misbehave in
// each way the plugin must survive. The environment it saw is echoed by
// env, so a test can check what passed.
func serveTestServer() {
	_ = newTestServer(nil).Run(context.Background(), &mcp.StdioTransport{})
}

// newTestServer builds the server; wait's calls return when release is
// closed, if they were not cancelled before.
func newTestServer(release <-chan struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "toolmcp-test", Version: "v0"}, nil)
	t := true
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
			return textResult("echo: " + in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "put", Description: "Store the text, once per call.", Annotations: &mcp.ToolAnnotations{IdempotentHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
			return textResult("stored"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "delete", Description: "Delete everything.", Annotations: &mcp.ToolAnnotations{DestructiveHint: &t}},
		func(_ context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
			return textResult("deleted"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "plain", Description: "No annotations at all."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
			return textResult("plain"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "The server's environment, one variable a line."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
			return textResult(strings.Join(os.Environ(), "\n")), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "A failure the model sees."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such page"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never answers."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
			select {} // not even a cancellation ends it: only a kill
		})
	mcp.AddTool(s, &mcp.Tool{Name: "wait", Description: "Answers when the call is cancelled, or released."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
			select {
			case <-ctx.Done():
			case <-release:
			}
			return textResult("released"), nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "rpcerror", Description: "Answers with a JSON-RPC error.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("the database is locked")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits mid-call."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "garbage", Description: "Prints what is not JSON-RPC."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stdout, "hello, this is not JSON-RPC")
			select {}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "flood", Description: "One line larger than any message may be."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
			chunk := strings.Repeat("x", 1<<20)
			os.Stdout.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`)
			for range 64 {
				os.Stdout.WriteString(chunk)
			}
			select {}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "a.dotted", Description: "A name no model API accepts."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
			return textResult("dotted"), nil, nil
		})
	return s
}
