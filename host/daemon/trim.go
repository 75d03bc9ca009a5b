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
// except a subscription (a GET for text/event-stream: the panel's, a
// session's or MCP's event stream), which can stay open for as long as a
// browser tab does and is not work the trim would slow down.
func withTrim(next http.Handler, w idletrim.Work) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			next.ServeHTTP(rw, r)
			return
		}
		w.Begin()
		defer w.End()
		next.ServeHTTP(rw, r)
	})
}
