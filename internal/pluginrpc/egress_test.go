package pluginrpc

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

// TestEgressRequestBodies: what the host's egress receives of a plugin's
// request body: a small one whose length is declared arrives whole (in
// memory, sent with the head), any other is streamed; either way
// byte for byte. A body that disagrees with its declared length is refused
// in the plugin.
func TestEgressRequestBodies(t *testing.T) {
	t.Parallel()
	type received struct {
		Whole bool
		Body  string
	}
	got := make(chan received, 1)
	c := egressPair(t, egressFunc(func(_ context.Context, req *sdk.EgressRequest) (*sdk.EgressResponse, error) {
		_, whole := req.Body.(*bytes.Reader)
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		got <- received{whole, string(b)}
		return &sdk.EgressResponse{StatusCode: 204, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}, nil
	}))
	big := strings.Repeat("x", chunkSize+10)
	for _, tc := range []struct {
		name    string
		length  string // the Content-Length header; "": none
		body    string
		want    *received
		wantErr string
	}{
		{name: "declared and small", length: "7", body: `{"a":1}`, want: &received{true, `{"a":1}`}},
		{name: "declared empty", length: "0", body: "", want: &received{true, ""}},
		{name: "undeclared", body: `{"a":1}`, want: &received{false, `{"a":1}`}},
		{name: "declared, larger than a message", length: "32778", body: big, want: &received{false, big}},
		{name: "longer than declared", length: "3", body: `{"a":1}`, wantErr: "longer than its Content-Length 3"},
		{name: "shorter than declared", length: "9", body: `{"a":1}`, wantErr: "7 bytes of its Content-Length 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.length != "" {
				h.Set("Content-Length", tc.length)
			}
			resp, err := c.Do(context.Background(), &sdk.EgressRequest{Method: "POST", URL: "http://127.0.0.1:9/v1", Header: h, Body: strings.NewReader(tc.body)})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if diff := cmp.Diff(*tc.want, <-got); diff != "" {
				t.Errorf("the egress received (-want +got):\n%s", diff)
			}
		})
	}
}
