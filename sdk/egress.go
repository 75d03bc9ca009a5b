package sdk

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// EgressRequest is an HTTP request a plugin asks the host to make.
type EgressRequest struct {
	Method string
	URL    string
	Header http.Header
	Body   io.Reader // may be nil
}

// EgressResponse is the upstream's answer, its body streamed from the host.
type EgressResponse struct {
	StatusCode int
	Header     http.Header
	Body       io.ReadCloser // Close cancels the upstream request
}

// Egress is the host's network service: the only way a plugin reaches the
// network. The host checks the URL against the plugin's allow list, removes
// any credential header the plugin set, injects the instance's credential
// and streams the response back.
type Egress interface {
	Do(ctx context.Context, req *EgressRequest) (*EgressResponse, error)
}

// HTTPClient returns an *http.Client whose every request goes through e, so
// net/http code and vendor SDKs work unchanged. Give vendor SDKs any
// placeholder key: the host strips it and injects the real credential.
func HTTPClient(e Egress) *http.Client {
	return &http.Client{Transport: &egressTransport{egress: e}}
}

type egressTransport struct{ egress Egress }

func (t *egressTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		defer r.Body.Close()
	}
	var body io.Reader
	if r.Body != nil && r.Body != http.NoBody {
		body = r.Body
	}
	resp, err := t.egress.Do(r.Context(), &EgressRequest{
		Method: r.Method,
		URL:    r.URL.String(),
		Header: r.Header.Clone(),
		Body:   body,
	})
	if err != nil {
		return nil, err
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode)),
		StatusCode:    resp.StatusCode,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        resp.Header,
		Body:          resp.Body,
		ContentLength: -1,
		Request:       r,
	}, nil
}
