// Command axon-tool-mcp is the axon tool plugin that offers the tools of
// an MCP server (Model Context Protocol) as axon tools: the server's names,
// descriptions and input schemas, with a side-effect class read from its
// annotations (readOnlyHint → none, idempotentHint → idempotent, anything
// else → unsafe) unless the block's side_effects says otherwise.
//
// The server is either a command, started as a child inside this plugin's
// own sandbox (never through a shell, in a process group of its own, with
// an environment built from nothing) and spoken to over stdio, or a URL
// spoken to over streamable HTTP through the host's egress. The plugin
// never opens a socket itself and never passes on its own environment.
//
// A server that crashes, hangs past the per-call timeout or breaks the
// protocol costs the call a classified error, never a stuck run: the
// server is killed (its whole group) and started again on the next call.
// Everything read from it is bounded.
package main

import (
	"os"

	"github.com/axonhq/axon/sdk/serve"
)

// version is stamped by the Makefile (-ldflags "-X main.version=…"); "dev" in a plain go build.
var version = "dev"

func main() {
	// In the sandbox the plugin is its PID namespace's init: what a killed
	// server leaves behind comes to it to be reaped.
	serve.Tool(&mcpTool{sweepOrphans: os.Getpid() == 1})
}
