package sdk_test

import (
	"net/http"
	"testing"

	"github.com/axonhq/axon/sdk"
)

func TestStatusClass(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]sdk.Class{
		400: sdk.ClassPermanent, 401: sdk.ClassAuthRequired, 402: sdk.ClassQuotaExhausted, 403: sdk.ClassAuthRequired,
		404: sdk.ClassPermanent, 408: sdk.ClassTransient, 409: sdk.ClassTransient, 413: sdk.ClassContextOverflow,
		422: sdk.ClassPermanent, 429: sdk.ClassTransient, 500: sdk.ClassTransient, 503: sdk.ClassTransient,
		529: sdk.ClassTransient, 301: sdk.ClassPermanent,
	} {
		if got := sdk.StatusClass(status); got != want {
			t.Errorf("StatusClass(%d) = %s, want %s", status, got, want)
		}
	}
}

func TestShouldRetry(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		header string
		in     sdk.Class
		want   sdk.Class
	}{
		{"", sdk.ClassTransient, sdk.ClassTransient},
		{"true", sdk.ClassPermanent, sdk.ClassTransient},
		{" TRUE ", sdk.ClassPermanent, sdk.ClassTransient},
		{"false", sdk.ClassTransient, sdk.ClassPermanent},
		{"true", sdk.ClassAuthRequired, sdk.ClassAuthRequired},
		{"false", sdk.ClassQuotaExhausted, sdk.ClassQuotaExhausted},
		{"maybe", sdk.ClassPermanent, sdk.ClassPermanent},
	} {
		h := http.Header{}
		if c.header != "" {
			h.Set("X-Should-Retry", c.header)
		}
		if got := sdk.ShouldRetry(h, c.in); got != c.want {
			t.Errorf("x-should-retry %q on %s: %s, want %s", c.header, c.in, got, c.want)
		}
	}
}
