package egress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/hcl/credref"
	"github.com/axonhq/axon/host/credential"
	"github.com/axonhq/axon/host/redact"
	"github.com/axonhq/axon/sdk"
)

// Grant is what one plugin instance may do on the network.
type Grant struct {
	Plugin     string      // instance name, for logs
	Allow      AllowList   // origins the plugin may reach
	Auth       sdk.Auth    // where the credential goes
	AuthSet    bool        // Auth was decided by the block or its preset, not the plugin
	Credential credref.Ref // zero: inject nothing
	// Inject lists the origins the credential is put on: the block's
	// base_url (and auth { origins }), never the rest of Allow. Empty:
	// nowhere.
	Inject AllowList
	// Proxy serves the plugin's CONNECT tunnels (Tunnel): its HTTPS proxy,
	// egress { proxy = true }. Tunnels reach only Allow, and carry bytes
	// the host neither reads nor changes: nothing is injected.
	Proxy bool

	// Limits; a zero field takes the default beside it.
	ConnectTimeout     time.Duration // TCP + TLS; 10s
	ResponseTimeout    time.Duration // end of the request body → response headers; 60s
	TotalTimeout       time.Duration // Do → end of the response body; 30m
	RequestIdleTimeout time.Duration // longest wait for the plugin's next request body bytes; 30s
	MaxRequestBytes    int64         // request body; 32 MiB
	MaxResponseBytes   int64         // response body; 32 MiB
	MaxConcurrent      int           // requests in flight, response bodies included; 16
}

const (
	defaultConnectTimeout     = 10 * time.Second
	defaultResponseTimeout    = 60 * time.Second
	defaultTotalTimeout       = 30 * time.Minute
	defaultRequestIdleTimeout = 30 * time.Second
	defaultMaxRequestBytes    = 32 << 20
	defaultMaxResponseBytes   = 32 << 20
	defaultMaxConcurrent      = 16
)

// methods are the HTTP methods a plugin may use. TRACE and TRACK echo the
// request (injected key included) and CONNECT opens a tunnel past every
// check here.
var methods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true,
}

// strippedHeaders are credential headers a plugin may not set.
var strippedHeaders = []string{"Authorization", "Proxy-Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key", "Cookie"}

// strippedQuery are credential query parameters a plugin may not set.
var strippedQuery = []string{"key", "api_key", "api-key"}

// Stats is called once per finished request, for metrics.
type Stats func(plugin, host string, status int, bytes int64, d time.Duration)

// Service is the egress of one plugin instance. It implements sdk.Egress.
type Service struct {
	grant  Grant
	env    credential.Env
	client *http.Client
	dialer *net.Dialer
	lookup Lookup
	slots  chan struct{} // one per request in flight
	logger hclog.Logger
	denied *denyLog
	stats  Stats
	// red is the redactor of the credential as last resolved. Building one
	// derives every encoded form of the secret, too costly for every
	// request; the credential is still resolved per request, so a rotated
	// key takes effect at once.
	red atomic.Pointer[secretRedactor]
}

type secretRedactor struct {
	secret string
	r      *redact.Redactor
}

var _ sdk.Egress = (*Service)(nil)

// Option configures a Service.
type Option func(*Service)

// WithEnv replaces os.LookupEnv for env: credentials (tests).
func WithEnv(env credential.Env) Option { return func(s *Service) { s.env = env } }

// WithStats reports every finished request.
func WithStats(f Stats) Option { return func(s *Service) { s.stats = f } }

// WithLookup replaces the system resolver (tests). The destination check
// still runs on every address dialed.
func WithLookup(f Lookup) Option { return func(s *Service) { s.lookup = f } }

// WithClock replaces time.Now for the deny log's rate limit (tests).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.denied.now = now } }

// New builds the egress of one plugin instance.
func New(g Grant, logger hclog.Logger, opts ...Option) *Service {
	orDefault(&g.ConnectTimeout, defaultConnectTimeout)
	orDefault(&g.ResponseTimeout, defaultResponseTimeout)
	orDefault(&g.TotalTimeout, defaultTotalTimeout)
	orDefault(&g.RequestIdleTimeout, defaultRequestIdleTimeout)
	orDefault(&g.MaxRequestBytes, defaultMaxRequestBytes)
	orDefault(&g.MaxResponseBytes, defaultMaxResponseBytes)
	orDefault(&g.MaxConcurrent, defaultMaxConcurrent)
	logger = logger.Named("egress").With("plugin", g.Plugin)
	s := &Service{
		grant:  g,
		env:    os.LookupEnv,
		dialer: &net.Dialer{Timeout: g.ConnectTimeout, KeepAlive: 30 * time.Second, ControlContext: checkDestination},
		slots:  make(chan struct{}, g.MaxConcurrent),
		logger: logger,
		denied: &denyLog{logger: logger, now: time.Now, seen: map[denyKey]*denyEntry{}},
	}
	transport := &http.Transport{
		// No proxy, not even from the environment: a proxy resolves the
		// name itself, so the dialer would check only the proxy's address.
		Proxy:                 nil,
		DialContext:           s.dial,
		TLSHandshakeTimeout:   g.ConnectTimeout,
		ResponseHeaderTimeout: g.ResponseTimeout,
		// As many idle connections as requests may be in flight: a load at
		// the limit then reuses every connection instead of opening one per
		// request (and leaving it in TIME_WAIT).
		MaxIdleConns:        g.MaxConcurrent,
		MaxIdleConnsPerHost: g.MaxConcurrent,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	s.client = &http.Client{
		Transport: transport,
		// Never follow redirects: a redirect could lead off the allow
		// list, and with a header credential, take it along.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func orDefault[T int | int64 | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// Redactor masks this grant's credential, as it resolves now (empty when
// it cannot be resolved: then no one has it to leak).
func (s *Service) Redactor() *redact.Redactor {
	secret, err := credential.Resolve(s.grant.Credential, s.env)
	if err != nil {
		return redact.New("")
	}
	return s.redactor(secret.Value())
}

// redactor masks secret, from the cache when it is the one last seen.
func (s *Service) redactor(secret string) *redact.Redactor {
	if c := s.red.Load(); c != nil && c.secret == secret {
		return c.r
	}
	r := redact.New(secret)
	s.red.Store(&secretRedactor{secret: secret, r: r})
	return r
}

// Close releases idle connections and logs the denials still counted.
func (s *Service) Close() {
	s.client.CloseIdleConnections()
	s.denied.flush()
}

// Do performs one request for the plugin.
func (s *Service) Do(ctx context.Context, req *sdk.EgressRequest) (*sdk.EgressResponse, error) {
	start := time.Now()
	method := req.Method
	if method == "" {
		method = http.MethodGet // as net/http reads it
	}
	u, err := url.Parse(req.URL)
	if err != nil || u.Host == "" {
		return nil, s.deny(method, "", "not an absolute URL")
	}
	if !methods[method] {
		return nil, s.deny(method, u.Host, fmt.Sprintf("method %q is not allowed; only GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS are", clip(method, 32)))
	}
	if u.User != nil {
		return nil, s.deny(method, u.Hostname(), "URLs with user info are refused")
	}
	if !s.grant.Allow.Allows(u) {
		return nil, s.deny(method, u.Host, "host is not on this plugin's allow list")
	}
	length := int64(-1)
	if cl := req.Header.Get("Content-Length"); cl != "" && req.Body != nil {
		n, err := strconv.ParseInt(cl, 10, 64)
		if err != nil || n < 0 {
			return nil, sdk.Permanentf("egress: Content-Length %q is not a length", clip(cl, 32))
		}
		if n > s.grant.MaxRequestBytes {
			return nil, &sdk.Error{Class: sdk.ClassPermanent, Code: sdk.ErrEgressLimit.Code,
				Message: fmt.Sprintf("egress: request body of %d bytes exceeds the %d byte limit (max_request_bytes)", n, s.grant.MaxRequestBytes)}
		}
		length = n
	}
	// A body already in memory (the plugin protocol hands a small one over
	// whole) has a length to check now and no plugin to wait on; net/http
	// sends it with its Content-Length and may resend it on a fresh
	// connection.
	whole, _ := req.Body.(*bytes.Reader)
	if whole != nil && int64(whole.Len()) > s.grant.MaxRequestBytes {
		return nil, &sdk.Error{Class: sdk.ClassPermanent, Code: sdk.ErrEgressLimit.Code,
			Message: fmt.Sprintf("egress: request body of %d bytes exceeds the %d byte limit (max_request_bytes)", whole.Len(), s.grant.MaxRequestBytes)}
	}
	secret, err := credential.Resolve(s.grant.Credential, s.env)
	if err != nil {
		// The message names the reference (env:NAME), never a value.
		s.logger.Warn("credential unavailable", "host", u.Host, "error", err)
		return nil, &sdk.Error{Class: sdk.ClassAuthRequired, Code: "credential_missing", Message: err.Error()}
	}
	inject := secret
	if !s.grant.Inject.Allows(u) {
		inject = credential.Secret{} // an allowed origin that is not the provider's own gets no key
	}
	q := u.Query()
	for k := range q {
		if s.credentialParam(k) {
			q.Del(k)
		}
	}
	if s.grant.Auth.Scheme == sdk.AuthQuery && !inject.IsZero() {
		q.Set(s.grant.Auth.Name, inject.Value())
	}
	u.RawQuery = q.Encode()

	c, err := s.begin(ctx, req.Body)
	if err != nil {
		s.denied.log(method, clip(u.Host, 255), "max_concurrent requests already in flight")
		return nil, err
	}
	var reqBody io.Reader = http.NoBody
	switch {
	case whole != nil:
		reqBody = whole
	case req.Body != nil:
		reqBody = &requestBody{r: req.Body, c: c, limit: s.grant.MaxRequestBytes, wait: s.grant.RequestIdleTimeout}
	}
	hr, err := http.NewRequestWithContext(withLiteral(c.ctx, s.grant.Allow.literal(u)), method, u.String(), reqBody)
	if err != nil {
		c.end()
		return nil, sdk.Permanentf("egress: bad request")
	}
	hr.Header = req.Header.Clone()
	if hr.Header == nil {
		hr.Header = http.Header{}
	}
	for _, h := range strippedHeaders {
		hr.Header.Del(h)
	}
	if s.grant.Auth.Name != "" && s.grant.Auth.Scheme == sdk.AuthHeader {
		hr.Header.Del(s.grant.Auth.Name)
	}
	if !inject.IsZero() {
		switch s.grant.Auth.Scheme {
		case sdk.AuthBearer:
			hr.Header.Set("Authorization", "Bearer "+inject.Value())
		case sdk.AuthHeader:
			hr.Header.Set(s.grant.Auth.Name, inject.Value())
		}
	}
	hr.Header.Del("Content-Length")
	if length >= 0 {
		hr.ContentLength = length
	}

	resp, err := s.client.Do(hr)
	if err != nil {
		e := s.transportError(ctx, c, method, u.Host, err, secret)
		c.end()
		s.finish(method, u.Host, 0, 0, start, e)
		return nil, e
	}
	if resp.ContentLength > s.grant.MaxResponseBytes {
		resp.Body.Close()
		c.end()
		e := &sdk.Error{Class: sdk.ClassPermanent, Code: sdk.ErrEgressLimit.Code,
			Message: fmt.Sprintf("egress: response of %d bytes exceeds the %d byte limit", resp.ContentLength, s.grant.MaxResponseBytes)}
		s.finish(method, u.Host, resp.StatusCode, 0, start, e)
		return nil, e
	}
	b := &body{
		rc: resp.Body, c: c, limit: s.grant.MaxResponseBytes, secret: secret,
		done: func(n int64, err error) { s.finish(method, u.Host, resp.StatusCode, n, start, err) },
	}
	// An upstream that echoes the request (an error quoting the key, a
	// reflecting endpoint, a Location with the query) must not hand the
	// injected key to the plugin.
	red := s.redactor(secret.Value())
	red.Header(resp.Header)
	return &sdk.EgressResponse{StatusCode: resp.StatusCode, Header: resp.Header, Body: red.Reader(b)}, nil
}

// credentialParam reports whether a query parameter is one a plugin may not
// set: a usual credential name or the block's own, in any letter case.
func (s *Service) credentialParam(k string) bool {
	for _, c := range strippedQuery {
		if strings.EqualFold(k, c) {
			return true
		}
	}
	return s.grant.Auth.Scheme == sdk.AuthQuery && strings.EqualFold(k, s.grant.Auth.Name)
}

func (s *Service) deny(method, host, why string) error {
	method, host = clip(method, 32), clip(host, 255)
	s.denied.log(method, host, why)
	return &sdk.Error{Class: sdk.ClassPermanent, Code: sdk.ErrEgressDenied.Code, Message: fmt.Sprintf("egress denied: %s %s: %s", method, host, why)}
}

// clip bounds a plugin-chosen string before it reaches a log or a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// transportError composes a safe error: net/http's own errors carry the
// full URL, which may hold an injected query credential.
func (s *Service) transportError(ctx context.Context, c *call, method, host string, err error, secret credential.Secret) error {
	var ne net.Error
	var ue *url.Error
	var de *destinationError
	inner := err
	if errors.As(err, &ue) {
		inner = ue.Err
	}
	switch {
	case c.failure() != nil:
		return c.failure()
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &de):
		return s.deny(method, host, de.Error())
	case errors.As(err, &ne) && ne.Timeout():
		return &sdk.Error{Class: sdk.ClassTransient, Code: sdk.ErrTimeout.Code, Message: "egress: upstream timed out"}
	}
	return &sdk.Error{Class: sdk.ClassTransient, Message: "egress: " + secret.Redact(inner.Error())}
}

// finish logs one request as it ended: a body read to its end, or closed
// by the caller without a read error, is a clean finish and has no error;
// a caller that cancelled while the upstream was still sending is logged
// with error="context canceled", and a failure with its error.
func (s *Service) finish(method, host string, status int, n int64, start time.Time, err error) {
	d := time.Since(start)
	kv := []any{"method", method, "host", host, "status", status, "bytes", n, "duration", d.Round(time.Microsecond)}
	if err != nil && !errors.Is(err, io.EOF) {
		kv = append(kv, "error", err.Error())
	}
	s.logger.Info("egress", kv...)
	if s.stats != nil {
		s.stats(s.grant.Plugin, host, status, n, d)
	}
}

// body streams the upstream response, enforcing the size limit, and logs
// the request once when it ends.
type body struct {
	rc     io.ReadCloser
	c      *call
	limit  int64
	n      int64
	secret credential.Secret
	done   func(int64, error)
	ended  atomic.Bool
}

func (b *body) Read(p []byte) (int, error) {
	if remaining := b.limit - b.n + 1; int64(len(p)) > remaining {
		p = p[:remaining]
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if b.n > b.limit {
		err = &sdk.Error{Class: sdk.ClassPermanent, Code: sdk.ErrEgressLimit.Code,
			Message: fmt.Sprintf("egress: response exceeds the %d byte limit", b.limit)}
		b.end(err)
		return n - int(b.n-b.limit), err
	}
	if err != nil && !errors.Is(err, io.EOF) {
		switch f := b.c.failure(); {
		case f != nil:
			err = f
		case b.c.ctx.Err() != nil:
			// The caller ended the request before the upstream ended the
			// body: a cancellation, said as such, not an upstream failure.
			err = b.c.ctx.Err()
		default:
			err = &sdk.Error{Class: sdk.ClassTransient, Message: "egress: reading response: " + b.secret.Redact(err.Error())}
		}
	}
	if err != nil {
		b.end(err)
	}
	return n, err
}

func (b *body) Close() error {
	b.end(nil)
	return b.rc.Close()
}

func (b *body) end(err error) {
	if b.ended.CompareAndSwap(false, true) {
		b.c.end()
		b.done(b.n, err)
	}
}
