package main

import (
	"context"
	"time"

	"github.com/axonhq/axon/sdk"
)

// ollama is the provider. The zero value is ready for Info; Configure must
// run before Models and Generate.
type ollama struct {
	cfg settings
	api sdk.Endpoint     // the egress; never a client of our own
	now func() time.Time // for HTTP-date retry hints; time.Now when nil
}

var _ sdk.Provider = (*ollama)(nil)

func (o *ollama) Info() sdk.Info {
	return sdk.Info{
		Name:    "ollama",
		Kind:    sdk.KindProvider,
		Version: version,
		Config:  schema(),
		// A local server takes no credential. For a remote one behind a
		// token, the provider block sets auth and credential; the host
		// injects them.
		Auth: sdk.Auth{Scheme: sdk.AuthNone},
		// /api/chat continues a trailing assistant message; the request
		// renders it as the last message, role assistant.
		Prefill: true,
		// /api/chat takes images only as base64 data: the host fetches an
		// image URL and hands it over inline.
		InlineMedia: true,
		// Request.Output goes out as format: "json", or the JSON Schema
		// itself, which Ollama enforces as a grammar while sampling.
		Output: true,
		// The request options rendered (parseRequestOptions, and the
		// front doors' sampling knobs into options); any other the host
		// names as ignored.
		Options: []string{"think", "keep_alive", "options", "top_p", "top_k", "seed"},
		// /api/chat has no tool_choice and no parallel-call switch: a
		// required or named choice offers the tools (the named one alone)
		// and the model decides; no prompt caching to steer.
		Lacks: []string{sdk.LackSequential, sdk.LackForcedToolChoice, sdk.LackCacheBreakpoints},
	}
}

func (o *ollama) Configure(ctx context.Context, cfg sdk.Config) error {
	s, err := parseConfig(cfg)
	if err != nil {
		return err
	}
	o.cfg = s
	o.api = sdk.Endpoint{Name: "ollama", BaseURL: s.baseURL, Header: s.header, Stream: sdk.MediaNDJSON, Now: o.now, StatusError: httpError}
	return o.api.Configure(cfg)
}

// Models lists the configured model. The server can list what it has
// pulled (/api/tags), but a provider block serves the one model it names.
func (o *ollama) Models(ctx context.Context) ([]sdk.Model, error) {
	return sdk.ConfiguredModel(o.cfg.model), nil
}

func (o *ollama) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	wr, err := buildRequest(req, o.cfg)
	if err != nil {
		return err
	}
	return o.api.Post(ctx, "/api/chat", wr, func(r *sdk.Reply) error {
		t := newTurn(out)
		t.s.Strict = o.cfg.strict
		if r.JSON {
			return decodeReply(ctx, r.Body, t)
		}
		return decodeStream(ctx, r.Body, t)
	})
}
