package sdk_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
)

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"none", http.Header{}, 0},
		{"ms wins", http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"9"}}, 1500 * time.Millisecond},
		{"seconds", http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{"fractional seconds", http.Header{"Retry-After": {"0.25"}}, 250 * time.Millisecond},
		{"zero", http.Header{"Retry-After": {"0"}}, 0},
		{"negative", http.Header{"Retry-After": {"-3"}}, 0},
		{"date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"huge", http.Header{"Retry-After": {"1e30"}}, sdk.MaxRetryAfter},
		{"infinite", http.Header{"Retry-After": {"+Inf"}}, sdk.MaxRetryAfter},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"bad ms falls through", http.Header{"Retry-After-Ms": {"x"}, "Retry-After": {"1"}}, time.Second},
	} {
		if got := sdk.RetryAfter(c.h, now); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
