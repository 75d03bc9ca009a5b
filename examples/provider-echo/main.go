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

func (e *echo) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	var last string
	for _, m := range req.Messages {
		if m.Role == sdk.RoleUser {
			last = e.cfg["prefix"] + sdk.TextOf(m.Parts)
		}
	}
	s := sdk.NewStream(out, "echo") // sends the start first and the one finish last; no text fails
	for i, w := range strings.Fields(last) {
		if i > 0 {
			w = " " + w
		}
		if err := s.Text(ctx, w); err != nil {
			return err
		}
	}
	return s.Finish(ctx, sdk.FinishStop)
}

func main() { serve.Provider(&echo{}) }
