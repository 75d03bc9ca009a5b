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
// host's work while it is served, an event-stream subscription does not.
func TestRequestsAreWorkButSubscriptionsAreNot(t *testing.T) {
	var w workCount
	var during int
	h := withTrim(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { during = w.begun - w.ended }), &w)
	for _, tc := range []struct {
		name, method, accept string
		counted              bool
	}{
		{"chat completion", http.MethodPost, "application/json", true},
		{"streamed chat completion", http.MethodPost, "text/event-stream", true},
		{"models", http.MethodGet, "", true},
		{"panel events", http.MethodGet, "text/event-stream", false},
		{"session events", http.MethodGet, "text/event-stream, application/json", false},
	} {
		w = workCount{}
		r := httptest.NewRequest(tc.method, "/v1/x", nil)
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
