package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
)

// gemini is the provider. The zero value is ready for Info; Configure must
// run before Models and Generate.
type gemini struct {
	cfg config
	api sdk.Endpoint     // the egress; never a client of our own
	now func() time.Time // for HTTP-date retry hints; time.Now when nil
}

var _ sdk.Provider = (*gemini)(nil)

func (g *gemini) Info() sdk.Info {
	return sdk.Info{
		Name:    "gemini",
		Kind:    sdk.KindProvider,
		Version: version,
		Config:  schema(),
		Auth:    sdk.Auth{Scheme: sdk.AuthHeader, Name: "x-goog-api-key"},
		// Request.Output goes out as responseMimeType and
		// responseJsonSchema, which Gemini enforces while decoding.
		Output: true,
		// fileData takes Gemini's own uploads (File API URIs), not a
		// client's URL: the host fetches an image or document URL and
		// hands the bytes over, sent as inlineData.
		InlineMedia: true,
		// The request options parseOptions renders; any other the host
		// names as ignored.
		Options: []string{"thinking_budget", "include_thoughts", "top_p", "top_k", "seed"},
		// functionCallingConfig has no switch for parallel calls; Gemini
		// caches implicitly (an explicit cache is a separate API).
		Lacks: []string{sdk.LackSequential, sdk.LackCacheBreakpoints},
	}
}

func (g *gemini) Configure(ctx context.Context, cfg sdk.Config) error {
	c, err := parseConfig(cfg)
	if err != nil {
		return err
	}
	g.cfg = c
	g.api = sdk.Endpoint{Name: "gemini", BaseURL: c.BaseURL, Header: c.header, Now: g.now, StatusError: httpError}
	return g.api.Configure(cfg)
}

// Models lists the configured model: a provider block serves the one model
// it names.
func (g *gemini) Models(ctx context.Context) ([]sdk.Model, error) {
	return sdk.ConfiguredModel(g.cfg.Model), nil
}

func (g *gemini) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	model := req.Model
	if model == "" {
		model = g.cfg.Model
	}
	model = strings.TrimPrefix(model, "models/")
	if model == "" {
		return sdk.Permanentf("gemini: no model: set model in the provider block or the request")
	}
	wr, err := buildRequest(req, g.cfg)
	if err != nil {
		return err
	}
	return g.api.Post(ctx, streamPath(model), wr, func(r *sdk.Reply) error {
		t := newTurn(out, model, callIDSeed(r.Request))
		t.s.Strict = g.cfg.StrictStream
		if r.JSON {
			return decodeJSON(ctx, r.Body, t)
		}
		return decodeStream(ctx, r.Body, t)
	})
}

// streamPath is the streaming endpoint for model. alt=sse asks for an
// event stream; without it the API streams one JSON array.
func streamPath(model string) string {
	return "/v1beta/models/" + url.PathEscape(model) + ":streamGenerateContent?alt=sse"
}

// callIDSeed derives ids for function calls when the reply carries no
// responseId either: from the request, so they are stable for one reply.
func callIDSeed(requestBody []byte) string {
	h := sha256.Sum256(requestBody)
	return hex.EncodeToString(h[:6])
}
