package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"time"

	"github.com/axonhq/axon/sdk"
)

// maxJSONBody bounds a non-streaming reply.
const maxJSONBody = 32 << 20

// openai is the provider. It is configured once; after that Generate only
// reads its fields, so concurrent calls are safe.
type openai struct {
	cfg config
	api sdk.Endpoint     // its Client is nil until configured with an egress
	now func() time.Time // the clock for retry hints; time.Now when nil
}

var _ sdk.Provider = (*openai)(nil)

func (p *openai) Info() sdk.Info {
	return sdk.Info{
		Name:    "openai",
		Kind:    sdk.KindProvider,
		Version: version,
		Config:  schema(),
		Auth:    sdk.Auth{Scheme: sdk.AuthBearer},
		// json_schema with strict is enforced by OpenAI's API; a
		// compatible server that lacks it refuses the request (a permanent
		// failure the chain falls back from), or its block sets
		// structured_output = false.
		Output: true,
		// The request options the configured API renders; any other the
		// host names as ignored.
		Options: p.renderedOptions(),
		// OpenAI and the compatible servers cache prompts on their own.
		Lacks: []string{sdk.LackCacheBreakpoints},
	}
}

// renderedOptions are the request options parseOptions reads that the
// configured API has a field for: the Responses API has no seed. Before
// Configure, those of either API.
func (p *openai) renderedOptions() []string {
	if p.cfg.API == apiResponses {
		return []string{"reasoning_effort", "parallel_tool_calls", "top_p", "response_format"}
	}
	return []string{"reasoning_effort", "parallel_tool_calls", "top_p", "seed", "response_format"}
}

func (p *openai) Configure(_ context.Context, cfg sdk.Config) error {
	c, err := parseConfig(cfg)
	if err != nil {
		return err
	}
	p.cfg = c
	p.api = sdk.Endpoint{Name: "openai", BaseURL: c.BaseURL, Header: c.header, Now: p.now, StatusError: httpError}
	if cfg.Egress == nil {
		return nil // allowed: Generate reports the missing egress
	}
	return p.api.Configure(cfg)
}

// Models lists the configured model. The plugin does not ask the server:
// listing is not part of every compatible API, and a chain needs only the
// model it was configured with.
func (p *openai) Models(context.Context) ([]sdk.Model, error) {
	return sdk.ConfiguredModel(p.cfg.Model), nil
}

func (p *openai) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	w := wireFor(p.cfg.API)
	wire, model, err := w.build(p.cfg, req)
	if err != nil {
		return err
	}
	return p.api.Post(ctx, w.path, wire, func(r *sdk.Reply) error {
		t := newTurn(out, model, r.Request)
		t.s.Strict = p.cfg.StrictStream
		if r.JSON {
			return w.decodeJSON(ctx, r.Body, t)
		}
		return w.decodeStream(ctx, r.Body, t)
	})
}

// wireAPI is one wire family the plugin speaks: where a request goes, how
// its body is built, and how a reply (streamed or one JSON document) is
// read into a turn.
type wireAPI struct {
	path         string
	build        func(config, *sdk.Request) (wire any, model string, err error)
	decodeStream func(context.Context, io.Reader, *turn) error
	decodeJSON   func(context.Context, io.Reader, *turn) error
}

var (
	chatWire = wireAPI{
		path: "/chat/completions",
		build: func(c config, req *sdk.Request) (any, string, error) {
			wire, err := buildRequest(c, req)
			if err != nil {
				return nil, "", err
			}
			return wire, wire.Model, nil
		},
		decodeStream: decodeStream,
		decodeJSON:   decodeJSON,
	}
	responsesWire = wireAPI{
		path: "/responses",
		build: func(c config, req *sdk.Request) (any, string, error) {
			wire, err := buildResponsesRequest(c, req)
			if err != nil {
				return nil, "", err
			}
			return wire, wire.Model, nil
		},
		decodeStream: decodeResponsesStream,
		decodeJSON:   decodeResponsesJSON,
	}
)

// wireFor is the wire family the api attribute names.
func wireFor(api string) wireAPI {
	if api == apiResponses {
		return responsesWire
	}
	return chatWire
}

// callIDSeed derives ids for tool calls the server left without one
// (Gemini): from the request and the response id, so they are stable for
// one reply and differ between turns of a conversation, where a repeated id
// would confuse tool results and idempotency keys.
func callIDSeed(requestBody []byte, responseID string) string {
	h := sha256.New()
	h.Write(requestBody)
	h.Write([]byte{0})
	h.Write([]byte(responseID))
	return hex.EncodeToString(h.Sum(nil)[:6])
}
