package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/axonhq/axon/sdk"
)

// version is this plugin's own version, reported in Info.
const version = "0.1.0"

// anthropic is the provider. The zero value is ready for Info; Configure
// must run before Models and Generate.
type anthropic struct {
	cfg    config
	client *http.Client     // the egress; never a client of our own
	log    debugLogger      // the host's log for this instance; nil: none
	now    func() time.Time // for HTTP-date retry hints; time.Now when nil
}

var _ sdk.Provider = (*anthropic)(nil)

// debugLogger is the part of sdk.Config.Logger this plugin uses.
type debugLogger interface {
	Debug(msg string, args ...any)
}

func (a *anthropic) Info() sdk.Info {
	return sdk.Info{
		Name:    "anthropic",
		Kind:    sdk.KindProvider,
		Version: version,
		Config:  schema(),
		Auth:    sdk.Auth{Scheme: sdk.AuthHeader, Name: "x-api-key"},
	}
}

func (a *anthropic) Configure(ctx context.Context, cfg sdk.Config) error {
	c, err := parseConfig(cfg)
	if err != nil {
		return err
	}
	if cfg.Egress == nil {
		return sdk.Permanentf("anthropic: no egress: the plugin has no other way to reach %s", c.BaseURL)
	}
	a.cfg = c
	a.client = sdk.HTTPClient(cfg.Egress)
	if cfg.Logger != nil {
		a.log = cfg.Logger
	}
	return nil
}

// Models lists the configured model. The Messages API has a models
// endpoint, but a provider block serves the one model it names.
func (a *anthropic) Models(ctx context.Context) ([]sdk.Model, error) {
	if a.cfg.Model == "" {
		return nil, nil
	}
	return []sdk.Model{{ID: a.cfg.Model}}, nil
}

func (a *anthropic) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	if a.client == nil {
		return sdk.Permanentf("anthropic: Generate before Configure")
	}
	wr, err := buildRequest(req, a.cfg)
	if err != nil {
		return err
	}
	body, err := json.Marshal(wr)
	if err != nil {
		return sdk.Permanentf("anthropic: encode request: %v", err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, a.cfg.BaseURL+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return sdk.Permanentf("anthropic: build request: %v", err)
	}
	for k, v := range a.cfg.Headers {
		hr.Header.Set(k, v)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream, application/json")
	hr.Header.Set("Anthropic-Version", a.cfg.AnthropicVersion)

	resp, err := a.client.Do(hr)
	if err != nil {
		if a.log != nil {
			a.log.Debug("messages request failed", "error", err)
		}
		return transportFailure(ctx, err, "anthropic: request failed before a response")
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		return httpError(resp.StatusCode, resp.Header, b, a.clock())
	}
	t := &turn{out: out}
	if isJSON(resp.Header.Get("Content-Type")) {
		return decodeMessage(ctx, resp.Body, t)
	}
	return decodeStream(ctx, resp.Body, t)
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

func (a *anthropic) clock() time.Time {
	if a.now != nil {
		return a.now()
	}
	return time.Now()
}
