package egress

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// TestConnectionsAreReusedUpToTheConcurrencyLimit: waves of as many
// concurrent requests as the grant allows reuse their connections, so a
// load at the limit opens each connection once instead of one per request
// (a saturated gateway must not leave thousands of sockets in TIME_WAIT).
func TestConnectionsAreReusedUpToTheConcurrencyLimit(t *testing.T) {
	t.Parallel()
	var opened atomic.Int64
	var gate sync.WaitGroup
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gate.Done()
		gate.Wait() // every request of the wave is in flight at once
		io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	s := newService(t, nil, sdk.Auth{Scheme: sdk.AuthBearer}, srv.URL)
	limit := s.grant.MaxConcurrent
	const waves = 3
	for range waves {
		gate.Add(limit)
		var wg sync.WaitGroup
		for range limit {
			wg.Go(func() {
				resp, err := s.Do(t.Context(), &sdk.EgressRequest{Method: "GET", URL: srv.URL + "/x"})
				if err != nil {
					t.Error(err)
					gate.Done()
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		wg.Wait()
	}
	if got := opened.Load(); got > int64(limit) {
		t.Errorf("%d waves of %d concurrent requests opened %d connections, want at most %d", waves, limit, got, limit)
	}
}
