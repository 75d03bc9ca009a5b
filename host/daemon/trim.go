package daemon

import (
	"net/http"
	"strings"

	"github.com/axonhq/axon/internal/idletrim"
)

// newTrimmer is the host's idle trim: once the front door has served no
// request for idletrim.After, the host returns the heap its requests freed
// to the kernel.
func newTrimmer() idletrim.Work { return idletrim.New(idletrim.After, idletrim.MinAlloc) }

// withTrim counts every request next serves as w's work while it runs,
// except two kinds that are not work the trim would slow down: a
// subscription (a GET for text/event-stream: the panel's, a session's or
// MCP's event stream), which can stay open for as long as a browser tab
// does, and a probe (/healthz, /metrics), which a monitor sends every few
// seconds: counted, it would keep a scraped host from ever being idle.
func withTrim(next http.Handler, w idletrim.Work) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		subscription := r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/event-stream")
		if subscription || r.URL.Path == "/healthz" || r.URL.Path == "/metrics" {
			next.ServeHTTP(rw, r)
			return
		}
		w.Begin()
		defer w.End()
		next.ServeHTTP(rw, r)
	})
}
