package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
)

// version is this plugin's own version, reported in Info.
const version = "0.1.0"

// readBufferSize is the body reader's buffer: big enough for a typical
// chunk, and SSE lines longer than it are assembled by the sse.Reader.
const readBufferSize = 16 << 10

// gemini is the provider. The zero value is ready for Info; Configure must
// run before Models and Generate.
type gemini struct {
	cfg    config
	client *http.Client     // the egress; never a client of our own
	log    debugLogger      // the host's log for this instance; nil: none
	now    func() time.Time // for HTTP-date retry hints; time.Now when nil
}

var _ sdk.Provider = (*gemini)(nil)

// debugLogger is the part of sdk.Config.Logger this plugin uses.
type debugLogger interface {
	Debug(msg string, args ...any)
}

func (g *gemini) Info() sdk.Info {
	return sdk.Info{
		Name:    "gemini",
		Kind:    sdk.KindProvider,
		Version: version,
		Config:  schema(),
		Auth:    sdk.Auth{Scheme: sdk.AuthHeader, Name: "x-goog-api-key"},
	}
}

func (g *gemini) Configure(ctx context.Context, cfg sdk.Config) error {
	c, err := parseConfig(cfg)
	if err != nil {
		return err
	}
	if cfg.Egress == nil {
		return sdk.Permanentf("gemini: no egress: the plugin has no other way to reach %s", c.BaseURL)
	}
	g.cfg = c
	g.client = sdk.HTTPClient(cfg.Egress)
	if cfg.Logger != nil {
		g.log = cfg.Logger
	}
	return nil
}

// Models lists the configured model: a provider block serves the one model
// it names.
func (g *gemini) Models(ctx context.Context) ([]sdk.Model, error) {
	if g.cfg.Model == "" {
		return nil, nil
	}
	return []sdk.Model{{ID: g.cfg.Model}}, nil
}

func (g *gemini) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	if g.client == nil {
		return sdk.Permanentf("gemini: Generate before Configure")
	}
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
	body, err := marshal(wr)
	if err != nil {
		return sdk.Permanentf("gemini: encode request: %v", err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, streamURL(g.cfg.BaseURL, model), bytes.NewReader(body))
	if err != nil {
		return sdk.Permanentf("gemini: build request: %v", err)
	}
	for k, v := range g.cfg.Headers {
		hr.Header.Set(k, v)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream, application/json")

	resp, err := g.client.Do(hr)
	if err != nil {
		if g.log != nil {
			g.log.Debug("streamGenerateContent request failed", "error", err)
		}
		return transportFailure(ctx, err, "gemini: request failed before a response")
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		// A body cut short still classifies by status.
		return httpError(resp.StatusCode, resp.Header, b, g.clock())
	}
	t := newTurn(out, model, callIDSeed(body))
	r := bufio.NewReaderSize(resp.Body, readBufferSize)
	if isJSON(resp.Header.Get("Content-Type"), r) {
		err = decodeJSON(ctx, r, t)
	} else {
		err = decodeStream(ctx, r, t)
	}
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// streamURL is the streaming endpoint for model. alt=sse asks for an event
// stream; without it the API streams one JSON array.
func streamURL(baseURL, model string) string {
	return baseURL + "/v1beta/models/" + url.PathEscape(model) + ":streamGenerateContent?alt=sse"
}

// callIDSeed derives ids for function calls when the reply carries no
// responseId either: from the request, so they are stable for one reply.
func callIDSeed(requestBody []byte) string {
	h := sha256.Sum256(requestBody)
	return hex.EncodeToString(h[:6])
}

func (g *gemini) clock() time.Time {
	if g.now != nil {
		return g.now()
	}
	return time.Now()
}
