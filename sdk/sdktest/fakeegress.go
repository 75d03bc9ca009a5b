// Package sdktest is the test kit for plugin authors: a fake Egress backed by
// an httptest server, an in-process harness that runs a plugin over real
// go-plugin gRPC, conformance suites for providers, tools and displays, and
// helpers for replay tests (recorded fixtures, split reads, golden files, a
// canonical rendering of a Generate result). It is imported by tests only,
// and registers no flags.
package sdktest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// FakeEgress is an sdk.Egress that sends every request to an httptest server
// whatever host the plugin named, and records what the plugin sent. It
// mimics the host's egress in the ways a plugin can observe: credential
// headers set by the plugin are removed, and the response body streams.
type FakeEgress struct {
	Server *httptest.Server
	client *http.Client

	mu       sync.Mutex
	requests []Recorded
}

// Recorded is one request as the plugin sent it (before rewriting).
type Recorded struct {
	Method string
	URL    string
	Header http.Header
	Body   []byte
}

// NewFakeEgress starts an httptest server running h and returns an Egress
// routed to it. The server stops when the test ends.
func NewFakeEgress(t testing.TB, h http.Handler) *FakeEgress {
	t.Helper()
	f := &FakeEgress{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(f.Server.Close)
	f.client = f.Server.Client()
	// Like the host's egress: a redirect is returned to the plugin, never followed.
	f.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return f
}

// Requests returns what the plugin has sent so far.
func (f *FakeEgress) Requests() []Recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Recorded(nil), f.requests...)
}

// credentialHeaders are the headers the real host strips from plugin requests.
var credentialHeaders = []string{"Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key"}

// Do records req and sends it to the fake's server, as the host's egress
// would: same path and query, the plugin's credential headers removed.
func (f *FakeEgress) Do(ctx context.Context, req *sdk.EgressRequest) (*sdk.EgressResponse, error) {
	u, err := url.Parse(req.URL)
	if err != nil {
		return nil, sdk.Permanentf("egress: bad url")
	}
	var body []byte
	if req.Body != nil {
		if body, err = readAll(req.Body); err != nil {
			return nil, sdk.Transientf("egress: read request body: %v", err)
		}
	}
	f.mu.Lock()
	f.requests = append(f.requests, Recorded{Method: req.Method, URL: req.URL, Header: req.Header.Clone(), Body: body})
	f.mu.Unlock()

	target, _ := url.Parse(f.Server.URL)
	u.Scheme, u.Host = target.Scheme, target.Host
	hr, err := http.NewRequestWithContext(ctx, req.Method, u.String(), bytesReader(body))
	if err != nil {
		return nil, sdk.Permanentf("egress: %v", err)
	}
	hr.Header = req.Header.Clone()
	if hr.Header == nil {
		hr.Header = http.Header{}
	}
	for _, h := range credentialHeaders {
		hr.Header.Del(h)
	}
	resp, err := f.client.Do(hr)
	if err != nil {
		return nil, sdk.Transientf("egress: %v", err)
	}
	return &sdk.EgressResponse{StatusCode: resp.StatusCode, Header: resp.Header, Body: resp.Body}, nil
}

var _ sdk.Egress = (*FakeEgress)(nil)
