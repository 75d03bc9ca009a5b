// Command axon-provider-echo is a minimal third-party provider: it answers
// with the last user message, word by word. It imports only the axon sdk.
package main

import (
	"context"
	"strings"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/serve"
)

type echo struct {
	cfg struct {
		Prefix string `json:"prefix"`
	}
}

func (e *echo) Info() sdk.Info {
	return sdk.Info{Name: "echo", Version: "1.0.0", Config: sdk.Schema{Attributes: []sdk.Attribute{
		{Name: "prefix", Type: "string", Default: []byte(`""`), Description: "text put before every answer"},
	}}}
}

func (e *echo) Configure(_ context.Context, cfg sdk.Config) error { return cfg.Decode(&e.cfg) }

func (e *echo) Models(context.Context) ([]sdk.Model, error) { return []sdk.Model{{ID: "echo"}}, nil }

func (e *echo) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	var last string
	for _, m := range req.Messages {
		if m.Role == sdk.RoleUser {
			last = sdk.TextOf(m.Parts)
		}
	}
	if last == "" {
		return sdk.Permanentf("nothing to echo: no user text")
	}
	out.Send(ctx, sdk.Event{Type: sdk.EventStart, Model: "echo"})
	for i, w := range strings.Fields(e.cfg.Prefix + last) {
		if i > 0 {
			w = " " + w
		}
		if err := out.Send(ctx, sdk.Event{Type: sdk.EventTextDelta, Text: w}); err != nil {
			return err
		}
	}
	return out.Send(ctx, sdk.Event{Type: sdk.EventFinish, Finish: sdk.FinishStop})
}

func main() { serve.Provider(&echo{}) }
