package sdk_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

func TestHTTPClientThroughEgress(t *testing.T) {
	t.Parallel()
	fake := sdktest.NewFakeEgress(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "https://elsewhere.example/x", http.StatusFound)
			return
		}
		io.WriteString(w, "body for "+r.URL.Path)
	}))
	c := sdk.HTTPClient(fake)
	resp, err := c.Get("https://api.example.com/hello")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "body for /hello" || resp.Status != "200 OK" {
		t.Errorf("got %s %q", resp.Status, b)
	}
	resp, err = c.Get("https://api.example.com/moved")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || len(fake.Requests()) != 2 {
		t.Errorf("redirect: status %d after %d requests, want the 302 itself and no second request", resp.StatusCode, len(fake.Requests()))
	}
}

// TestHTTPClientSendsTheBodyLength: a body whose length net/http knows
// reaches the egress with it, so the host can send the request whole;
// one it does not know goes without.
func TestHTTPClientSendsTheBodyLength(t *testing.T) {
	t.Parallel()
	var got []string
	c := sdk.HTTPClient(sdktest.EgressFunc(func(_ context.Context, req *sdk.EgressRequest) (*sdk.EgressResponse, error) {
		b, _ := io.ReadAll(req.Body)
		got = append(got, req.Header.Get("Content-Length")+" "+string(b))
		return &sdk.EgressResponse{StatusCode: 204, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}, nil
	}))
	for _, body := range []io.Reader{strings.NewReader(`{"a":1}`), io.MultiReader(strings.NewReader(`{"b":2}`))} {
		resp, err := c.Post("https://api.example.com/v1", "application/json", body)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if want := []string{`7 {"a":1}`, ` {"b":2}`}; !slices.Equal(got, want) {
		t.Errorf("the egress got %q, want %q", got, want)
	}
}
