package sdk

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// MaxErrorBody bounds how much of an error reply Post reads for
// StatusError: enough for any vendor's error object, never a whole runaway
// body.
const MaxErrorBody = 64 << 10

// After a complete reply, Post reads on to the end of the body, at most
// drainBytes and for drainGrace, before it closes it. A decoder stops at
// the reply's terminal event, and the upstream's end of the body (the last
// chunk, HTTP/2's END_STREAM) usually follows a moment later: closing first
// would cancel a finished request, and the egress would log a clean
// answer as cancelled.
const (
	drainBytes = 64 << 10
	drainGrace = 250 * time.Millisecond
)

// replyBuffer is a reply's read buffer: Reply.JSON peeks into it, and the
// sse and line readers read through it without a buffer of their own (so
// it is no smaller than sse's 16 KB, or sse would add one). A streamed
// reply holds it for as long as the model writes: 32 KB cost a plugin with
// 64 slow streams 0.6–1.0 MB more; 8 KB (with sse's buffer 8 KB too) saved
// 1.5 MB but cost about 3 % more CPU per request in bench/ (decisions,
// 2026-12-08).
const replyBuffer = 16 << 10

// replyReaders are the replies' buffered readers, reused: a reply is read
// to its end within Post, so its reader is free again when Post returns.
var replyReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, replyBuffer) }}

// Stream media types for Endpoint.Stream.
const (
	MediaEventStream = "text/event-stream"
	MediaNDJSON      = "application/x-ndjson"
)

// Endpoint is the HTTP API a provider plugin calls, reached through the
// host's egress. A plugin fills one in its Configure and hands it the
// sdk.Config with Endpoint.Configure; Post then does the part of every call
// that is the same for every provider: encode, send, classify what went
// wrong below HTTP or in a non-2xx status, and hand a good reply to the
// plugin's decoder.
type Endpoint struct {
	Name    string       // the plugin's name, the prefix of its error messages: "anthropic"
	BaseURL string       // the API root, as ParseBaseURL returns it; Post appends a path
	Header  http.Header  // sent with every request: configured extra headers, an API version
	Client  *http.Client // set by Configure; nil until then, and Post fails
	// Stream is the media type of a streamed reply, MediaEventStream when
	// empty or MediaNDJSON. Requests accept it and application/json.
	Stream string
	Logger hclog.Logger     // set by Configure: the host's log for this instance; nil: none
	Now    func() time.Time // the clock StatusError gets, for HTTP-date hints; nil: time.Now
	// StatusError classifies a reply whose status is not 2xx, from its
	// status, headers and the first MaxErrorBody bytes of its body (fewer
	// when the body broke off: the status still decides). Nil: StatusClass
	// and RetryAfter alone.
	StatusError func(status int, h http.Header, body []byte, now time.Time) *Error
}

// Configure takes the egress and the logger from cfg. It fails when cfg
// has no egress: the plugin has no other way to reach BaseURL.
func (e *Endpoint) Configure(cfg Config) error {
	if cfg.Egress == nil {
		return e.noEgress()
	}
	e.Client, e.Logger = HTTPClient(cfg.Egress), cfg.Logger
	return nil
}

func (e *Endpoint) noEgress() error {
	if e.BaseURL == "" {
		return Permanentf("%s: not configured", e.name())
	}
	return Permanentf("%s: no egress: the plugin has no other way to reach %s", e.name(), e.BaseURL)
}

// Reply is a 2xx reply on its way to a decoder.
type Reply struct {
	Request []byte // the request body as sent, e.g. to derive ids from
	Header  http.Header
	// Body is the reply's body, valid until the read function returns: its
	// buffer serves the next reply after that.
	Body *bufio.Reader
	// JSON says the reply is one JSON document rather than a stream: by its
	// Content-Type (application/json or a +json type), or, when that names
	// neither JSON nor the stream type, by its first byte that is not white
	// space ({ or [; an event stream never starts so). An NDJSON stream
	// starts with { as JSON does, so there the type alone decides.
	JSON bool
}

// Post sends v, encoded by EncodeJSON, to BaseURL+path and hands a 2xx
// reply to read, closing the reply's body after. Its errors are
// classified: TransportError when no response came, StatusError for a
// non-2xx status, and read's own. When ctx has ended, Post returns
// ctx.Err() whatever failed, so a cancelled or timed-out caller always
// sees its own context error.
func (e *Endpoint) Post(ctx context.Context, path string, v any, read func(*Reply) error) error {
	if e.Client == nil {
		return e.noEgress()
	}
	body, err := EncodeJSON(v)
	if err != nil {
		return Permanentf("%s: encode request: %v", e.name(), err)
	}
	reqCtx, cancel := context.WithCancel(ctx) // ends a drain that takes too long
	defer cancel()
	hr, err := http.NewRequestWithContext(reqCtx, http.MethodPost, e.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return Permanentf("%s: build request: %v", e.name(), err)
	}
	for k, v := range e.Header {
		hr.Header[k] = slices.Clone(v)
	}
	stream := e.stream()
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", stream+", application/json")

	resp, err := e.Client.Do(hr)
	if err != nil {
		if e.Logger != nil {
			e.Logger.Debug("request failed before a response", "error", err)
		}
		return TransportError(ctx, e.name(), err)
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, err := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		return e.statusError(resp.StatusCode, resp.Header, b)
	}
	br := replyReaders.Get().(*bufio.Reader)
	br.Reset(resp.Body)
	defer func() {
		br.Reset(nil) // no reference to this reply's body stays in the pool
		replyReaders.Put(br)
	}()
	r := &Reply{Request: body, Header: resp.Header, Body: br}
	r.JSON = isJSON(resp.Header.Get("Content-Type"), stream, r.Body)
	if err := read(r); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	drain(r.Body, cancel)
	return nil
}

// drain reads what is left of a complete reply's body, up to its end,
// drainBytes or drainGrace, whichever comes first; cancel ends the request
// when the grace runs out.
func drain(body io.Reader, cancel context.CancelFunc) {
	t := time.AfterFunc(drainGrace, cancel)
	defer t.Stop()
	_, _ = io.Copy(io.Discard, io.LimitReader(body, drainBytes))
}

func (e *Endpoint) statusError(status int, h http.Header, body []byte) *Error {
	now := time.Now
	if e.Now != nil {
		now = e.Now
	}
	if e.StatusError != nil {
		return e.StatusError(status, h, body, now())
	}
	return &Error{Class: StatusClass(status), Status: status, Message: fmt.Sprintf("%s: HTTP %d", e.name(), status), RetryAfter: RetryAfter(h, now())}
}

func (e *Endpoint) name() string {
	if e.Name == "" {
		return "provider"
	}
	return e.Name
}

func (e *Endpoint) stream() string {
	if e.Stream == "" {
		return MediaEventStream
	}
	return e.Stream
}

func isJSON(contentType, stream string, body *bufio.Reader) bool {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		switch {
		case mt == stream:
			return false
		case mt == "application/json", strings.HasSuffix(mt, "+json"):
			return true
		}
	}
	if stream != MediaEventStream {
		return false
	}
	for i := 1; ; i++ {
		b, err := body.Peek(i)
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
