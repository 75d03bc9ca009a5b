package sdk_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

func TestParseBaseURL(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"https://api.example.test/v1/": "https://api.example.test/v1",
		"http://127.0.0.1:11434":       "http://127.0.0.1:11434",
		"127.0.0.1:11434":              "want an absolute http or https URL",
		"ftp://example.test":           "want an absolute http or https URL",
		"https://":                     "want an absolute http or https URL",
		"https://example.test/?key=1":  "must not carry a query, fragment or user info",
		"https://example.test/#top":    "must not carry a query, fragment or user info",
		"https://me:pw@example.test":   "must not carry a query, fragment or user info",
	} {
		got, err := sdk.ParseBaseURL(raw)
		if err != nil {
			if sdk.ClassOf(err) != sdk.ClassPermanent || !strings.Contains(err.Error(), want) {
				t.Errorf("%q: error %v, want one saying %q", raw, err, want)
			}
			continue
		}
		if got != want {
			t.Errorf("%q: %q, want %q", raw, got, want)
		}
	}
}

func TestExtraHeaders(t *testing.T) {
	t.Parallel()
	got, err := sdk.ExtraHeaders(map[string]string{"http-referer": "https://me.test", "X-Title": "me"}, "Anthropic-Version")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(http.Header{"Http-Referer": {"https://me.test"}, "X-Title": {"me"}}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got, err := sdk.ExtraHeaders(nil); got != nil || err != nil {
		t.Errorf("no headers: %v, %v; want nil, nil", got, err)
	}
	for _, name := range []string{"authorization", "Proxy-Authorization", "x-api-key", "API-KEY", "x-goog-api-key", "anthropic-version"} {
		if _, err := sdk.ExtraHeaders(map[string]string{name: "v"}, "anthropic-version"); sdk.ClassOf(err) != sdk.ClassPermanent || !strings.Contains(err.Error(), "may not be set") {
			t.Errorf("%s: error %v, want it refused", name, err)
		}
	}
}

// TestAttributes: the shared attributes have the names and types the
// checks above read, and their defaults are JSON literals.
func TestAttributes(t *testing.T) {
	t.Parallel()
	got := []sdk.Attribute{
		sdk.BaseURLAttribute("https://api.example.test", "API root."),
		sdk.ModelAttribute("m-1"),
		sdk.MaxTokensAttribute(4096, "The limit."),
		sdk.HeadersAttribute(""),
		sdk.HeadersAttribute("X-Title"),
	}
	want := []sdk.Attribute{
		{Name: "base_url", Type: "string", Default: []byte(`"https://api.example.test"`), Description: "API root."},
		{Name: "model", Type: "string", Description: "Model used when a request names none, e.g. m-1."},
		{Name: "max_tokens", Type: "number", Default: []byte(`4096`), Description: "The limit."},
		{Name: "headers", Type: "map(string)", Description: "Extra request headers. Credential headers are refused: the host injects the credential."},
		{Name: "headers", Type: "map(string)", Description: "Extra request headers, e.g. X-Title. Credential headers are refused: the host injects the credential."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for v, want := range map[any]string{"chat": `"chat"`, 0: `0`, true: `true`, "<a>": `"\u003ca\u003e"`} {
		if got := string(sdk.Default(v)); got != want {
			t.Errorf("Default(%v) = %s, want %s", v, got, want)
		}
	}
}

func TestConfiguredModel(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff([]sdk.Model{{ID: "m"}}, sdk.ConfiguredModel("m")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := sdk.ConfiguredModel(""); got != nil {
		t.Errorf("no model configured: %v, want none", got)
	}
}
