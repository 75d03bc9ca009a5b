// Command axon-provider-cli is the axon provider plugin that drives a
// vendor's command-line client as a subprocess — Claude Code (claude -p),
// Codex (codex exec), Gemini CLI (gemini -p) — so a flat-rate subscription
// reachable only through that client can serve a chain.
//
// Each Generate renders the conversation into one prompt, runs the
// configured argv (never through a shell) in a process group of its own,
// and reads the answer from stdout as text, one JSON object, or JSON lines
// streamed as they arrive.
//
// The prompt is the text of a single user message when that is the whole
// request (no system prompt). Otherwise it is a fixed layout: blocks
// separated by one blank line, each a label line and the turn's text —
// "System:" (the system prompt first, then system messages where they
// stand), "User:", "Assistant:" (its tool calls follow its text, one line
// each: "[tool call NAME id=ID] {json input}"), and "Tool result NAME
// id=ID:" or "Tool error NAME id=ID:" for each tool result. Reasoning is
// dropped; images, and requests that require a tool call, are refused.
//
// The client's environment is built, never inherited: HOME and TMPDIR as
// the plugin has them (HOME is the block's home, where the client's login
// lives), PATH from the path attribute, HTTPS_PROXY and https_proxy when
// the host offers its proxy, then env, minus scrub_env. It must never pass
// on anything else of the plugin's environment, never hold a credential of
// its own, and never put the environment or more than a short tail of the
// client's stderr into an error. At the timeout, on cancellation, or when
// the output passes its bounds the whole group is killed; the client is
// always reaped.
package main

import (
	"os"

	"github.com/axonhq/axon/sdk/serve"
)

// version is stamped by the Makefile (-ldflags "-X main.version=…"); "dev" in a plain go build.
var version = "dev"

func main() {
	// In the sandbox the plugin is its PID namespace's init: what its
	// clients leave behind comes to it to be reaped.
	serve.Provider(&cli{sweepOrphans: os.Getpid() == 1})
}
