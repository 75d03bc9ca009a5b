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

// ollama is the provider. The zero value is ready for Info; Configure must
// run before Models and Generate.
type ollama struct {
	cfg    settings
	client *http.Client     // the egress; never a client of our own
	log    debugLogger      // the host's log for this instance; nil: none
	now    func() time.Time // for HTTP-date retry hints; time.Now when nil
}

var _ sdk.Provider = (*ollama)(nil)

// debugLogger is the part of sdk.Config.Logger this plugin uses.
type debugLogger interface {
	Debug(msg string, args ...any)
}

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
	}
}

func (o *ollama) Configure(ctx context.Context, cfg sdk.Config) error {
	s, err := parseConfig(cfg)
	if err != nil {
		return err
	}
	if cfg.Egress == nil {
		return sdk.Permanentf("ollama: no egress: the plugin has no other way to reach %s", s.baseURL)
	}
	o.cfg = s
	o.client = sdk.HTTPClient(cfg.Egress)
	if cfg.Logger != nil {
		o.log = cfg.Logger
	}
	return nil
}

// Models lists the configured model. The server can list what it has
// pulled (/api/tags), but a provider block serves the one model it names.
func (o *ollama) Models(ctx context.Context) ([]sdk.Model, error) {
	if o.cfg.model == "" {
		return nil, nil
	}
	return []sdk.Model{{ID: o.cfg.model}}, nil
}

func (o *ollama) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	if o.client == nil {
		return sdk.Permanentf("ollama: Generate before Configure")
	}
	wr, err := buildRequest(req, o.cfg)
	if err != nil {
		return err
	}
	body, err := json.Marshal(wr)
	if err != nil {
		return sdk.Permanentf("ollama: encode request: %v", err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, o.cfg.baseURL+"/api/chat", bytes.NewReader(body))
	if err != nil {
		return sdk.Permanentf("ollama: build request: %v", err)
	}
	for k, v := range o.cfg.headers {
		hr.Header.Set(k, v)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/x-ndjson, application/json")

	resp, err := o.client.Do(hr)
	if err != nil {
		if o.log != nil {
			o.log.Debug("chat request failed", "error", err)
		}
		return transportFailure(ctx, err, "ollama: request failed before a response")
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		return httpError(resp.StatusCode, resp.Header, b, o.clock())
	}
	t := &turn{out: out}
	if isJSON(resp.Header.Get("Content-Type")) {
		return decodeReply(ctx, resp.Body, t)
	}
	return decodeStream(ctx, resp.Body, t)
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

func (o *ollama) clock() time.Time {
	if o.now != nil {
		return o.now()
	}
	return time.Now()
}
