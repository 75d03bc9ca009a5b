package sdk

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// HTTPClient returns an *http.Client whose every request goes through e, so
// net/http code and vendor SDKs work unchanged. Give vendor SDKs any
// placeholder key: the host strips it and injects the real credential.
//
// Like the host's egress, the client returns a redirect to the caller
// instead of following it; a plugin that wants to follow redirects sets
// CheckRedirect on the returned client (each hop is still checked against
// the host's allow list).
func HTTPClient(e Egress) *http.Client {
	return &http.Client{
		Transport:     &egressTransport{egress: e},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

type egressTransport struct{ egress Egress }

func (t *egressTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		defer r.Body.Close()
	}
	var body io.Reader
	header := r.Header.Clone()
	if r.Body != nil && r.Body != http.NoBody {
		body = r.Body
		if r.ContentLength > 0 {
			// The length net/http knows (a body in memory): the plugin
			// protocol then sends a small body with the request's head, and
			// the upstream gets a Content-Length instead of chunks.
			if header == nil {
				header = http.Header{}
			}
			header.Set("Content-Length", strconv.FormatInt(r.ContentLength, 10))
		}
	}
	resp, err := t.egress.Do(r.Context(), &EgressRequest{
		Method: r.Method,
		URL:    r.URL.String(),
		Header: header,
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
