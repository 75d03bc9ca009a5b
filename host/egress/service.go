package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/credential"
	"github.com/axonhq/axon/host/redact"
	"github.com/axonhq/axon/sdk/spec"
)

// Grant is what one plugin instance may do on the network.
type Grant struct {
	Plugin     string         // instance name, for logs
	Allow      AllowList      // origins the plugin may reach
	Auth       spec.Auth      // where the credential goes
	AuthSet    bool           // Auth was decided by the block or its preset, not the plugin
	Credential credential.Ref // zero: inject nothing
	// Inject lists the origins the credential is put on: the block's
	// base_url (and auth { origins }), never the rest of Allow. Empty:
	// nowhere.
	Inject AllowList

	ConnectTimeout   time.Duration // TCP + TLS; default 10s
	ResponseTimeout  time.Duration // until response headers; default 60s
	MaxResponseBytes int64         // default 32 MiB
}

const (
	defaultConnectTimeout  = 10 * time.Second
	defaultResponseTimeout = 60 * time.Second
	defaultMaxResponse     = 32 << 20
)

// strippedHeaders are credential headers a plugin may not set.
var strippedHeaders = []string{"Authorization", "Proxy-Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key", "Cookie"}

// strippedQuery are credential query parameters a plugin may not set.
var strippedQuery = []string{"key", "api_key", "api-key"}

// Stats is called once per finished request, for metrics.
type Stats func(plugin, host string, status int, bytes int64, d time.Duration)

// Service is the egress of one plugin instance. It implements spec.Egress.
type Service struct {
	grant  Grant
	env    credential.Env
	client *http.Client
	logger hclog.Logger
	stats  Stats
}

var _ spec.Egress = (*Service)(nil)

// Option configures a Service.
type Option func(*Service)

// WithEnv replaces os.LookupEnv for env: credentials (tests).
func WithEnv(env credential.Env) Option { return func(s *Service) { s.env = env } }

// WithStats reports every finished request.
func WithStats(f Stats) Option { return func(s *Service) { s.stats = f } }

// New builds the egress of one plugin instance.
func New(g Grant, logger hclog.Logger, opts ...Option) *Service {
	if g.ConnectTimeout <= 0 {
		g.ConnectTimeout = defaultConnectTimeout
	}
	if g.ResponseTimeout <= 0 {
		g.ResponseTimeout = defaultResponseTimeout
	}
	if g.MaxResponseBytes <= 0 {
		g.MaxResponseBytes = defaultMaxResponse
	}
	dialer := &net.Dialer{Timeout: g.ConnectTimeout, KeepAlive: 30 * time.Second}
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   g.ConnectTimeout,
		ResponseHeaderTimeout: g.ResponseTimeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	s := &Service{
		grant: g,
		env:   os.LookupEnv,
		client: &http.Client{
			Transport: transport,
			// Never follow redirects: a redirect could lead off the allow
			// list, and with a header credential, take it along.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		logger: logger.Named("egress").With("plugin", g.Plugin),
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Redactor masks this grant's credential, as it resolves now (empty when
// it cannot be resolved: then no one has it to leak).
func (s *Service) Redactor() *redact.Redactor {
	secret, err := s.grant.Credential.Resolve(s.env)
	if err != nil {
		return redact.New("")
	}
	return redact.New(secret.Value())
}

// Close releases idle connections.
func (s *Service) Close() { s.client.CloseIdleConnections() }

// Do performs one request for the plugin.
func (s *Service) Do(ctx context.Context, req *spec.EgressRequest) (*spec.EgressResponse, error) {
	start := time.Now()
	u, err := url.Parse(req.URL)
	if err != nil || u.Host == "" {
		return nil, s.deny(req.Method, "", "not an absolute URL")
	}
	if u.User != nil {
		return nil, s.deny(req.Method, u.Hostname(), "URLs with user info are refused")
	}
	if !s.grant.Allow.Allows(u) {
		return nil, s.deny(req.Method, u.Host, "host is not on this plugin's allow list")
	}
	secret, err := s.grant.Credential.Resolve(s.env)
	if err != nil {
		// The message names the reference (env:NAME), never a value.
		s.logger.Warn("credential unavailable", "host", u.Host, "error", err)
		return nil, &spec.Error{Class: spec.ClassAuthRequired, Code: "credential_missing", Message: err.Error()}
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
	if s.grant.Auth.Scheme == spec.AuthQuery && !inject.IsZero() {
		q.Set(s.grant.Auth.Name, inject.Value())
	}
	u.RawQuery = q.Encode()

	reqBody := req.Body
	if reqBody == nil {
		reqBody = http.NoBody
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, u.String(), reqBody)
	if err != nil {
		return nil, spec.Permanentf("egress: bad request method")
	}
	hr.Header = req.Header.Clone()
	if hr.Header == nil {
		hr.Header = http.Header{}
	}
	for _, h := range strippedHeaders {
		hr.Header.Del(h)
	}
	if s.grant.Auth.Name != "" && s.grant.Auth.Scheme == spec.AuthHeader {
		hr.Header.Del(s.grant.Auth.Name)
	}
	if !inject.IsZero() {
		switch s.grant.Auth.Scheme {
		case spec.AuthBearer:
			hr.Header.Set("Authorization", "Bearer "+inject.Value())
		case spec.AuthHeader:
			hr.Header.Set(s.grant.Auth.Name, inject.Value())
		}
	}
	hr.Header.Del("Content-Length")
	if cl := req.Header.Get("Content-Length"); cl != "" {
		fmt.Sscan(cl, &hr.ContentLength)
	}

	resp, err := s.client.Do(hr)
	if err != nil {
		e := s.transportError(ctx, err, secret)
		s.finish(req.Method, u.Host, 0, 0, start, e)
		return nil, e
	}
	if resp.ContentLength > s.grant.MaxResponseBytes {
		resp.Body.Close()
		e := &spec.Error{Class: spec.ClassPermanent, Code: spec.ErrEgressLimit.Code,
			Message: fmt.Sprintf("egress: response of %d bytes exceeds the %d byte limit", resp.ContentLength, s.grant.MaxResponseBytes)}
		s.finish(req.Method, u.Host, resp.StatusCode, 0, start, e)
		return nil, e
	}
	b := &body{
		rc: resp.Body, limit: s.grant.MaxResponseBytes, secret: secret,
		done: func(n int64, err error) { s.finish(req.Method, u.Host, resp.StatusCode, n, start, err) },
	}
	// An upstream that echoes the request (an error quoting the key, a
	// reflecting endpoint, a Location with the query) must not hand the
	// injected key to the plugin.
	red := redact.New(secret.Value())
	red.Header(resp.Header)
	return &spec.EgressResponse{StatusCode: resp.StatusCode, Header: resp.Header, Body: red.Reader(b)}, nil
}

// credentialParam reports whether a query parameter is one a plugin may not
// set: a usual credential name or the block's own, in any letter case.
func (s *Service) credentialParam(k string) bool {
	for _, c := range strippedQuery {
		if strings.EqualFold(k, c) {
			return true
		}
	}
	return s.grant.Auth.Scheme == spec.AuthQuery && strings.EqualFold(k, s.grant.Auth.Name)
}

func (s *Service) deny(method, host, why string) error {
	s.logger.Warn("egress denied", "method", method, "host", host, "reason", why)
	return &spec.Error{Class: spec.ClassPermanent, Code: spec.ErrEgressDenied.Code, Message: fmt.Sprintf("egress denied: %s %s: %s", method, host, why)}
}

// transportError composes a safe error: net/http's own errors carry the
// full URL, which may hold an injected query credential.
func (s *Service) transportError(ctx context.Context, err error, secret credential.Secret) error {
	var ne net.Error
	var ue *url.Error
	inner := err
	if errors.As(err, &ue) {
		inner = ue.Err
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &ne) && ne.Timeout():
		return &spec.Error{Class: spec.ClassTransient, Code: spec.ErrTimeout.Code, Message: "egress: upstream timed out"}
	}
	return &spec.Error{Class: spec.ClassTransient, Message: "egress: " + secret.Redact(inner.Error())}
}

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
		err = &spec.Error{Class: spec.ClassPermanent, Code: spec.ErrEgressLimit.Code,
			Message: fmt.Sprintf("egress: response exceeds the %d byte limit", b.limit)}
		b.end(err)
		return n - int(b.n-b.limit), err
	}
	if err != nil && !errors.Is(err, io.EOF) {
		err = &spec.Error{Class: spec.ClassTransient, Message: "egress: reading response: " + b.secret.Redact(err.Error())}
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
		b.done(b.n, err)
	}
}
