package daemon

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// workCount is an idletrim.Work that counts.
type workCount struct{ begun, ended int }

func (w *workCount) Begin() { w.begun++ }
func (w *workCount) End()   { w.ended++ }

// TestRequestsAreWorkButSubscriptionsAreNot: a request counts as the
// host's work while it is served; an event-stream subscription and a
// health or metrics probe do not.
func TestRequestsAreWorkButSubscriptionsAreNot(t *testing.T) {
	var w workCount
	var during int
	h := withTrim(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { during = w.begun - w.ended }), &w)
	for _, tc := range []struct {
		name, method, path, accept string
		counted                    bool
	}{
		{"chat completion", http.MethodPost, "/v1/chat/completions", "application/json", true},
		{"streamed chat completion", http.MethodPost, "/v1/chat/completions", "text/event-stream", true},
		{"models", http.MethodGet, "/v1/models", "", true},
		{"panel events", http.MethodGet, "/panel/api/events", "text/event-stream", false},
		{"session events", http.MethodGet, "/v1/sessions/s/events", "text/event-stream, application/json", false},
		{"health probe", http.MethodGet, "/healthz", "", false},
		{"metrics scrape", http.MethodGet, "/metrics", "text/plain", false},
	} {
		w = workCount{}
		r := httptest.NewRequest(tc.method, tc.path, nil)
		if tc.accept != "" {
			r.Header.Set("Accept", tc.accept)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
		want := 0
		if tc.counted {
			want = 1
		}
		if w.begun != want || w.ended != want || during != want {
			t.Errorf("%s: begun %d, ended %d, in flight while served %d; want %d each", tc.name, w.begun, w.ended, during, want)
		}
	}
}
