package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/axonhq/axon/host/egress"
)

// Config is what a Fetcher may do. A zero field takes the default beside it.
type Config struct {
	// Off refuses every fetch: a provider that takes only inline data then
	// fails any request holding a URL part.
	Off bool
	// Allow lists origins ("http://127.0.0.1:8080", "nas.lan:8443",
	// meaning https) that may be fetched although they resolve to a
	// non-public address; an http origin must be listed to be fetched at
	// all. No wildcards: each is one origin the operator means.
	Allow           []string
	MaxPartBytes    int64         // one image or document; 20 MiB
	MaxRequestBytes int64         // every part of one request together; 50 MiB
	Timeout         time.Duration // one fetch, redirects and body included; 30s
	MaxRedirects    int           // 5
}

// The defaults. A part is bounded as the providers that take inline data
// bound theirs (Gemini: 20 MB per request inline; Ollama: the model's
// context), a request a little above.
const (
	DefaultMaxPartBytes    = 20 << 20
	DefaultMaxRequestBytes = 50 << 20
	DefaultTimeout         = 30 * time.Second
	DefaultMaxRedirects    = 5
)

// Kind is what a part must be: it decides which content types are taken.
type Kind string

const (
	KindImage    Kind = "image"
	KindDocument Kind = "document"
)

// Fetched is one part's bytes and the media type they were served as.
type Fetched struct {
	MediaType string
	Data      []byte
}

// Fetcher GETs media URLs under a Config. One serves every request.
type Fetcher struct {
	cfg     Config
	allowed map[string]bool // host:port of Allow, any scheme
	origins egress.AllowList
	dialer  *net.Dialer
	client  *http.Client
}

// New checks cfg's allow list and builds a Fetcher; it opens nothing.
func New(cfg Config) (*Fetcher, error) {
	orDefault(&cfg.MaxPartBytes, DefaultMaxPartBytes)
	orDefault(&cfg.MaxRequestBytes, DefaultMaxRequestBytes)
	orDefault(&cfg.Timeout, DefaultTimeout)
	orDefault(&cfg.MaxRedirects, DefaultMaxRedirects)
	f := &Fetcher{cfg: cfg, allowed: map[string]bool{}}
	for _, a := range cfg.Allow {
		if strings.Contains(a, "*") {
			return nil, fmt.Errorf("media: allow entry %q: no wildcards; list each origin", a)
		}
		o, err := egress.ParseOrigin(a)
		if err != nil {
			return nil, fmt.Errorf("media: allow entry: %w", err)
		}
		f.allowed[hostPort(o.Host, o.Port)] = true
	}
	origins, err := egress.NewAllowList(cfg.Allow...)
	if err != nil {
		return nil, fmt.Errorf("media: allow entry: %w", err)
	}
	f.origins = origins
	f.dialer = &net.Dialer{Timeout: 10 * time.Second, ControlContext: checkDestination}
	f.client = &http.Client{
		Transport: &http.Transport{
			// No proxy, not even from the environment: a proxy would
			// resolve the name where the destination check cannot see it.
			Proxy:                 nil,
			DialContext:           f.dial,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: cfg.Timeout,
			MaxIdleConns:          8,
			IdleConnTimeout:       30 * time.Second,
			ForceAttemptHTTP2:     true,
		},
		CheckRedirect: f.checkRedirect,
		// No Jar: a cookie set by one URL never goes to the next.
	}
	return f, nil
}

func orDefault[T int | int64 | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// Close drops idle connections.
func (f *Fetcher) Close() { f.client.CloseIdleConnections() }

// checkURL refuses what may not be fetched at all, before any connection.
func (f *Fetcher) checkURL(u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !f.origins.Allows(u) {
			return errors.New("plain http is fetched only from an origin axon { media { allow } } lists; use https")
		}
	default:
		return fmt.Errorf("scheme %q is not https", u.Scheme)
	}
	if u.User != nil {
		return errors.New("a URL with user info is not fetched: the host attaches no credential")
	}
	if u.Hostname() == "" {
		return errors.New("the URL names no host")
	}
	return nil
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.cfg.MaxRedirects {
		return fmt.Errorf("more than %d redirects", f.cfg.MaxRedirects)
	}
	if err := f.checkURL(req.URL); err != nil {
		return fmt.Errorf("redirected to %s: %w", Redact(req.URL.String()), err)
	}
	// net/http copies headers it set on the first request; none is a
	// credential, but be plain about it.
	req.Header.Del("Authorization")
	req.Header.Del("Cookie")
	return nil
}

// Fetch GETs rawURL as a part of kind, reading at most limit bytes (the
// part limit when limit is larger or not positive). Its errors are composed
// here and name the URL without its query.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string, kind Kind, limit int64) (Fetched, error) {
	if f.cfg.Off {
		return Fetched{}, errors.New("fetching media URLs is off (axon { media { fetch = false } })")
	}
	if limit <= 0 || limit > f.cfg.MaxPartBytes {
		limit = f.cfg.MaxPartBytes
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return Fetched{}, errors.New("not a URL")
	}
	if err := f.checkURL(u); err != nil {
		return Fetched{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Fetched{}, errors.New("not a URL")
	}
	req.Header.Set("Accept", accept(kind))
	req.Header.Set("User-Agent", "axon-media-fetch")
	resp, err := f.client.Do(req)
	if err != nil {
		return Fetched{}, f.transportError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Fetched{}, fmt.Errorf("the server answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	if resp.ContentLength > limit {
		return Fetched{}, overLimit(limit)
	}
	// Count what is read: Content-Length may be absent or wrong.
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return Fetched{}, f.transportError(ctx, err)
	}
	if int64(len(data)) > limit {
		return Fetched{}, overLimit(limit)
	}
	mt, err := mediaType(kind, resp.Header.Get("Content-Type"), data)
	if err != nil {
		return Fetched{}, err
	}
	return Fetched{MediaType: mt, Data: data}, nil
}

func accept(kind Kind) string {
	if kind == KindImage {
		return "image/*"
	}
	return "application/pdf, text/plain"
}

// limitError is a part or request over its byte limit.
type limitError struct{ limit int64 }

func (e *limitError) Error() string {
	return fmt.Sprintf("it is larger than the %s limit", Size(e.limit))
}

func overLimit(limit int64) error { return &limitError{limit: limit} }

// transportError names why a fetch failed without copying net/http's
// message, which carries the whole URL.
func (f *Fetcher) transportError(ctx context.Context, err error) error {
	var d *destinationError
	switch {
	case errors.As(err, &d):
		return d
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("no complete answer within %s", f.cfg.Timeout)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return fmt.Errorf("no complete answer within %s", f.cfg.Timeout)
		}
		err = ue.Err
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return errors.New("its host name does not resolve")
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return fmt.Errorf("could not connect: %v", op.Err)
	}
	return fmt.Errorf("the fetch failed: %v", err)
}

// mediaType is the type the bytes are taken as: the response's, sniffed
// when it sends none or only application/octet-stream; refused unless it
// fits kind (any image/* for an image; application/pdf, or text/plain in
// UTF-8, for a document).
func mediaType(kind Kind, header string, data []byte) (string, error) {
	mt, _, err := mime.ParseMediaType(header)
	if err != nil || mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream" {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(data))
	}
	switch kind {
	case KindImage:
		if strings.HasPrefix(mt, "image/") {
			return mt, nil
		}
		return "", fmt.Errorf("it is served as %s, not an image", mt)
	case KindDocument:
		switch {
		case mt == "application/pdf":
			return mt, nil
		case mt == "text/plain" && utf8.Valid(data):
			return mt, nil
		case mt == "text/plain":
			return "", errors.New("it is text/plain but not UTF-8")
		}
		return "", fmt.Errorf("it is served as %s, not application/pdf or text/plain", mt)
	}
	return "", fmt.Errorf("unknown part kind %q", kind)
}

// Redact is rawURL without its query, fragment and user info: enough to
// name it, nothing that could be a signature or a token.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(an unparsable URL)"
	}
	q := u.RawQuery != "" || u.ForceQuery
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	s := u.String()
	if q {
		s += "?…"
	}
	return s
}

// Size renders a byte count the way the limits are written: 20 MiB.
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
