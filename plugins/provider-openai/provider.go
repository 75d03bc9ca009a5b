package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/axonhq/axon/sdk"
)

const version = "0.1.0"

// maxErrorBody bounds how much of an error response is read: enough for any
// vendor's error object, never a whole runaway body.
const maxErrorBody = 64 << 10

// maxJSONBody bounds a non-streaming reply.
const maxJSONBody = 32 << 20

// bodyBufferSize is the reply reader's buffer: isJSON peeks into it, and
// the event reader assembles lines longer than it.
const bodyBufferSize = 32 << 10

// openai is the provider. It is configured once; after that Generate only
// reads its fields, so concurrent calls are safe.
type openai struct {
	cfg    config
	client *http.Client // nil until configured with an egress
	now    func() time.Time
}

var _ sdk.Provider = (*openai)(nil)

func (p *openai) Info() sdk.Info {
	return sdk.Info{
		Name:    "openai",
		Kind:    sdk.KindProvider,
		Version: version,
		Config:  schema(),
		Auth:    sdk.Auth{Scheme: sdk.AuthBearer},
	}
}

func (p *openai) Configure(_ context.Context, cfg sdk.Config) error {
	c, err := parseConfig(cfg)
	if err != nil {
		return err
	}
	p.cfg = c
	if cfg.Egress != nil {
		p.client = sdk.HTTPClient(cfg.Egress)
	}
	if p.now == nil {
		p.now = time.Now
	}
	return nil
}

// Models lists the configured model. The plugin does not ask the server:
// listing is not part of every compatible API, and a chain needs only the
// model it was configured with.
func (p *openai) Models(context.Context) ([]sdk.Model, error) {
	if p.cfg.Model == "" {
		return nil, nil
	}
	return []sdk.Model{{ID: p.cfg.Model}}, nil
}

func (p *openai) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	if p.client == nil {
		return sdk.Permanentf("openai: not configured with an egress")
	}
	w := wireFor(p.cfg.API)
	body, model, err := w.build(p.cfg, req)
	if err != nil {
		return err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.cfg.BaseURL+w.path, bytes.NewReader(body))
	if err != nil {
		return sdk.Permanentf("openai: build request: %v", err)
	}
	for k, v := range p.cfg.Headers {
		hreq.Header.Set(k, v)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream, application/json")

	resp, err := p.client.Do(hreq)
	if err != nil {
		return transportError(ctx.Err(), err)
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if err != nil && ctx.Err() != nil {
			return ctxError(ctx.Err())
		}
		// A body cut short still classifies by status and headers.
		return httpError(resp.StatusCode, resp.Header, b, p.now())
	}

	t := newTurn(out, model, body)
	r := bufio.NewReaderSize(resp.Body, bodyBufferSize)
	if isJSON(resp.Header.Get("Content-Type"), r) {
		err = w.decodeJSON(ctx, r, t)
	} else {
		err = w.decodeStream(ctx, r, t)
	}
	if err != nil && ctx.Err() != nil {
		return ctxError(ctx.Err())
	}
	return err
}

// wireAPI is one wire family the plugin speaks: where a request goes, how
// its body is built, and how a reply (streamed or one JSON document) is
// read into a turn.
type wireAPI struct {
	path         string
	build        func(config, *sdk.Request) (body []byte, model string, err error)
	decodeStream func(context.Context, io.Reader, *turn) error
	decodeJSON   func(context.Context, io.Reader, *turn) error
}

var (
	chatWire = wireAPI{
		path: "/chat/completions",
		build: func(c config, req *sdk.Request) ([]byte, string, error) {
			wire, err := buildRequest(c, req)
			if err != nil {
				return nil, "", err
			}
			body, err := encodeRequest(wire)
			return body, wire.Model, err
		},
		decodeStream: decodeStream,
		decodeJSON:   decodeJSON,
	}
	responsesWire = wireAPI{
		path: "/responses",
		build: func(c config, req *sdk.Request) ([]byte, string, error) {
			wire, err := buildResponsesRequest(c, req)
			if err != nil {
				return nil, "", err
			}
			body, err := encodeRequest(wire)
			return body, wire.Model, err
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

// encodeRequest marshals the wire body. HTML escaping is off: prompts are
// not HTML, and "<" stays one byte instead of six.
func encodeRequest(wire any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(wire); err != nil {
		return nil, sdk.Permanentf("openai: encode request: %v", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// isJSON says whether a 200 reply is one JSON document rather than an
// event stream: by its content type, or, when the server names none, by
// its first byte.
func isJSON(contentType string, r *bufio.Reader) bool {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		switch {
		case mt == "text/event-stream":
			return false
		case mt == "application/json" || len(mt) > 5 && mt[len(mt)-5:] == "+json":
			return true
		}
	}
	for i := 1; ; i++ {
		b, err := r.Peek(i)
		if err != nil || len(b) < i {
			return false
		}
		switch b[i-1] {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[':
			return true
		}
		return false
	}
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
