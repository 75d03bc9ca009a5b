package sdk_test

import (
	"io"
	"net/http"
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
