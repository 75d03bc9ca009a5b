// Command axon-provider-echo is a minimal third-party provider: it echoes the last user message.
package main

import (
	"context"
	"strings"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/serve"
)

type echo struct{ cfg map[string]string } // the plugin-owned attributes: prefix

func (e *echo) Info() sdk.Info {
	prefix := sdk.Attribute{Name: "prefix", Type: "string", Default: sdk.Default(""), Description: "text put before every answer"}
	return sdk.Info{Name: "echo", Version: "1.0.0", Config: sdk.Schema{Attributes: []sdk.Attribute{prefix}}}
}

func (e *echo) Configure(_ context.Context, cfg sdk.Config) error { return cfg.Decode(&e.cfg) }

// Generate streams the words; sdk.Stream adds the start and the one finish, and fails an empty reply.
func (e *echo) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	var last string
	for _, m := range req.Messages {
		if m.Role == sdk.RoleUser {
			last = e.cfg["prefix"] + sdk.TextOf(m.Parts)
		}
	}
	s := sdk.NewStream(out, "echo")
	for _, w := range strings.SplitAfter(last, " ") {
		if err := s.Text(ctx, w); err != nil {
			return err
		}
	}
	return s.Finish(ctx, sdk.FinishStop)
}

func main() { serve.Provider(&echo{}) }
