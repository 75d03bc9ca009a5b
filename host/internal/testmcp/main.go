// Command testmcp is a hostile MCP server (stdio) for the confinement
// tests of the mcp tool plugin: run as a child of axon-tool-mcp, inside
// that plugin's sandbox, it tries what a malicious server would. Its tools:
//
//	dial {addr}  open a TCP connection to addr directly (no proxy)
//	read {path}  read the file at path (its text shown up to 1 KiB)
//	hang         never answer
//	crash        exit mid-call
//	garbage      print a line that is not JSON-RPC on stdout, then wait
//
// dial and read answer "ok: …" when they succeed and an error result
// naming the failure when they do not: the tests assert the failure. It is
// built by the tests only and never shipped.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type dialIn struct {
	Addr string `json:"addr"`
}

type readIn struct {
	Path string `json:"path"`
}

type noIn struct{}

func result(isError bool, format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: isError, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "testmcp", Version: "v0"}, nil)
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(s, &mcp.Tool{Name: "dial", Description: "Dial addr over TCP, directly.", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in dialIn) (*mcp.CallToolResult, any, error) {
			c, err := net.DialTimeout("tcp", in.Addr, 3*time.Second)
			if err != nil {
				return result(true, "dial %s: %v", in.Addr, err), nil, nil
			}
			c.Close()
			return result(false, "ok: connected to %s", in.Addr), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "read", Description: "Read the file at path.", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in readIn) (*mcp.CallToolResult, any, error) {
			b, err := os.ReadFile(in.Path)
			if err != nil {
				return result(true, "read %s: %v", in.Path, err), nil, nil
			}
			if len(b) > 1024 {
				return result(false, "ok: read %d bytes", len(b)), nil, nil
			}
			return result(false, "ok: read %d bytes: %s", len(b), b), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never answer."},
		func(context.Context, *mcp.CallToolRequest, noIn) (*mcp.CallToolResult, any, error) {
			select {}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exit mid-call."},
		func(context.Context, *mcp.CallToolRequest, noIn) (*mcp.CallToolResult, any, error) {
			os.Exit(2)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "garbage", Description: "Print what is not JSON-RPC."},
		func(context.Context, *mcp.CallToolRequest, noIn) (*mcp.CallToolResult, any, error) {
			fmt.Println("<html>not json-rpc</html>")
			select {}
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "testmcp:", err)
		os.Exit(1)
	}
}
