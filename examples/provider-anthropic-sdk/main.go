// Command axon-provider-anthropic-sdk is a third-party-style provider built
// on the official Anthropic Go SDK, to show that a vendor SDK works unchanged
// through the host's egress. It handles text conversations only (text
// streaming, usage, finish); plugins/provider-anthropic is the full adapter.
//
// The SDK gets sdk.HTTPClient as its HTTP client, so it never opens a socket;
// its retries are off (the host's chain retries and falls back); its API key
// is a placeholder that the host strips before injecting the real one; it
// reads nothing from the environment.
package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/serve"
)

// placeholderKey satisfies the SDK; the host replaces it on the way out.
const placeholderKey = "placeholder-replaced-by-the-host"

type provider struct {
	cfg struct {
		BaseURL   string `json:"base_url"`
		Model     string `json:"model"`
		MaxTokens int64  `json:"max_tokens"`
	}
	client anthropic.Client
}

var _ sdk.Provider = (*provider)(nil)

func (p *provider) Info() sdk.Info {
	return sdk.Info{Name: "anthropic-sdk", Version: "0.1.0",
		Auth: sdk.Auth{Scheme: sdk.AuthHeader, Name: "x-api-key"},
		Config: sdk.Schema{Attributes: []sdk.Attribute{
			{Name: "base_url", Type: "string", Default: []byte(`"https://api.anthropic.com"`), Description: "Messages API root"},
			{Name: "model", Type: "string", Required: true, Description: "model to call"},
			{Name: "max_tokens", Type: "number", Default: []byte(`1024`), Description: "max_tokens of every request"},
		}}}
}

func (p *provider) Configure(_ context.Context, cfg sdk.Config) error {
	if err := cfg.Decode(&p.cfg); err != nil {
		return err
	}
	if cfg.Egress == nil {
		return sdk.Permanentf("no egress")
	}
	p.client = anthropic.NewClient(
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(sdk.HTTPClient(cfg.Egress)),
		option.WithBaseURL(p.cfg.BaseURL),
		option.WithMaxRetries(0),
		option.WithAPIKey(placeholderKey),
	)
	return nil
}

func (p *provider) Models(context.Context) ([]sdk.Model, error) {
	return []sdk.Model{{ID: p.cfg.Model}}, nil
}

func (p *provider) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	params := anthropic.MessageNewParams{Model: p.cfg.Model, MaxTokens: p.cfg.MaxTokens}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	for _, m := range req.Messages {
		block := anthropic.NewTextBlock(sdk.TextOf(m.Parts))
		switch m.Role {
		case sdk.RoleUser:
			params.Messages = append(params.Messages, anthropic.NewUserMessage(block))
		case sdk.RoleAssistant:
			params.Messages = append(params.Messages, anthropic.NewAssistantMessage(block))
		}
	}
	stream := p.client.Messages.NewStreaming(ctx, params)
	defer stream.Close()
	var usage sdk.Usage
	var stop anthropic.StopReason
	for stream.Next() {
		var err error
		switch ev := stream.Current().AsAny().(type) {
		case anthropic.MessageStartEvent:
			usage.InputTokens = sdk.Tokens(ev.Message.Usage.InputTokens)
			err = out.Send(ctx, sdk.Event{Type: sdk.EventStart, Model: ev.Message.Model})
		case anthropic.ContentBlockDeltaEvent:
			if d, ok := ev.Delta.AsAny().(anthropic.TextDelta); ok && d.Text != "" {
				err = out.Send(ctx, sdk.Event{Type: sdk.EventTextDelta, Text: d.Text})
			}
		case anthropic.MessageDeltaEvent:
			stop = ev.Delta.StopReason
			usage.OutputTokens = sdk.Tokens(ev.Usage.OutputTokens)
		case anthropic.MessageStopEvent:
			if err := out.Send(ctx, sdk.Event{Type: sdk.EventUsage, Usage: &usage}); err != nil {
				return err
			}
			return out.Send(ctx, sdk.Event{Type: sdk.EventFinish, Finish: finish(stop)})
		}
		if err != nil {
			return err
		}
	}
	if err := stream.Err(); err != nil {
		return classify(ctx, err)
	}
	return sdk.Transientf("stream ended before message_stop")
}

func finish(r anthropic.StopReason) sdk.FinishReason {
	switch r {
	case anthropic.StopReasonMaxTokens:
		return sdk.FinishLength
	case anthropic.StopReasonToolUse:
		return sdk.FinishToolCalls
	case anthropic.StopReasonRefusal:
		return sdk.FinishContentFilter
	}
	return sdk.FinishStop
}

// classify maps an SDK error to the taxonomy by status alone; the vendor's
// message stays inside the plugin.
func classify(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		return sdk.Transientf("anthropic sdk: request failed")
	}
	e := &sdk.Error{Class: sdk.ClassPermanent, Status: apiErr.StatusCode, Message: "anthropic sdk: " + http.StatusText(apiErr.StatusCode)}
	switch s := apiErr.StatusCode; {
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		e.Class = sdk.ClassAuthRequired
	case s == http.StatusTooManyRequests || s >= 500:
		e.Class = sdk.ClassTransient
	}
	return e
}

func main() { serve.Provider(&provider{}) }
