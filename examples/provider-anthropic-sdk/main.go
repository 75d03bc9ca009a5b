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
	"time"

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
	for _, t := range req.System {
		b := anthropic.TextBlockParam{Text: t.Text}
		switch t.Cache { // a prompt-cache breakpoint after this block
		case sdk.CacheDefault:
			b.CacheControl = anthropic.NewCacheControlEphemeralParam()
		case sdk.Cache5m, sdk.Cache1h:
			b.CacheControl = anthropic.CacheControlEphemeralParam{TTL: anthropic.CacheControlEphemeralTTL(t.Cache)}
		}
		params.System = append(params.System, b)
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
	// sdk.Stream keeps the stream rules: start first, usage merged and sent
	// before the one finish, a reply without text a failure.
	s := sdk.NewStream(out, p.cfg.Model)
	var stop anthropic.StopReason
	for stream.Next() {
		var err error
		switch ev := stream.Current().AsAny().(type) {
		case anthropic.MessageStartEvent:
			s.Usage(&sdk.Usage{InputTokens: sdk.Tokens(ev.Message.Usage.InputTokens)})
			err = s.Start(ctx, ev.Message.Model)
		case anthropic.ContentBlockDeltaEvent:
			if d, ok := ev.Delta.AsAny().(anthropic.TextDelta); ok {
				err = s.Text(ctx, d.Text)
			}
		case anthropic.MessageDeltaEvent:
			stop = ev.Delta.StopReason
			s.Usage(&sdk.Usage{OutputTokens: sdk.Tokens(ev.Usage.OutputTokens)})
		case anthropic.MessageStopEvent:
			return s.Finish(ctx, finish(stop))
		}
		if err != nil {
			return err
		}
	}
	if err := stream.Err(); err != nil {
		return classify(ctx, err)
	}
	return sdk.ErrCutStream.Newf("anthropic sdk: stream ended before message_stop")
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
// message stays inside the plugin. An error without a status never got a
// response: the caller's cancellation, the egress's verdict, or a broken
// connection.
func classify(ctx context.Context, err error) error {
	var apiErr *anthropic.Error
	if ctx.Err() != nil || !errors.As(err, &apiErr) {
		return sdk.TransportError(ctx, "anthropic sdk", err)
	}
	s := apiErr.StatusCode
	e := &sdk.Error{Class: sdk.StatusClass(s), Status: s, Message: "anthropic sdk: " + http.StatusText(s)}
	if apiErr.Response != nil {
		e.RetryAfter = sdk.RetryAfter(apiErr.Response.Header, time.Now())
	}
	return e
}

func main() { serve.Provider(&provider{}) }
