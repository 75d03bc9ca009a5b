package main

import (
	"context"
	"maps"
	"net/http"
	"time"

	"github.com/axonhq/axon/sdk"
)

// anthropic is the provider. The zero value is ready for Info; Configure
// must run before Models and Generate.
type anthropic struct {
	cfg config
	api sdk.Endpoint     // the egress; never a client of our own
	now func() time.Time // for HTTP-date retry hints; time.Now when nil
}

var _ sdk.Provider = (*anthropic)(nil)

func (a *anthropic) Info() sdk.Info {
	return sdk.Info{
		Name:    "anthropic",
		Kind:    sdk.KindProvider,
		Version: version,
		Config:  schema(),
		Auth:    sdk.Auth{Scheme: sdk.AuthHeader, Name: "x-api-key"},
		// Messages continues a trailing assistant message natively (prefill);
		// the request renders it as the last message, role assistant.
		Prefill: true,
		// A JSON Schema goes out as output_config.format, which the API
		// enforces (constrained decoding).
		Output: true,
		// The request options parseOptions renders (thinking, top_p,
		// top_k); any other the host names as ignored.
		Options: []string{"thinking_budget", "top_p", "top_k"},
	}
}

func (a *anthropic) Configure(ctx context.Context, cfg sdk.Config) error {
	c, err := parseConfig(cfg)
	if err != nil {
		return err
	}
	header := http.Header{"Anthropic-Version": {c.AnthropicVersion}}
	maps.Copy(header, c.header)
	a.cfg = c
	a.api = sdk.Endpoint{Name: "anthropic", BaseURL: c.BaseURL, Header: header, Now: a.now, StatusError: httpError}
	return a.api.Configure(cfg)
}

// Models lists the configured model. The Messages API has a models
// endpoint, but a provider block serves the one model it names.
func (a *anthropic) Models(ctx context.Context) ([]sdk.Model, error) {
	return sdk.ConfiguredModel(a.cfg.Model), nil
}

func (a *anthropic) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	wr, err := buildRequest(req, a.cfg)
	if err != nil {
		return err
	}
	return a.api.Post(ctx, "/v1/messages", wr, func(r *sdk.Reply) error {
		t := newTurn(out)
		t.s.Strict = a.cfg.StrictStream
		if r.JSON {
			return decodeMessage(ctx, r.Body, t)
		}
		return decodeStream(ctx, r.Body, t)
	})
}
