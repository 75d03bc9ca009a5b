package sdk

import (
	"context"
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
