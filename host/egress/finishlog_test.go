package egress

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/sdk"
)

// TestFinishLog: the one log line of a request says how it ended. A stream
// read to its end, or closed by its reader, is a clean finish with no
// error; a reader that cancels while the upstream is still sending is
// logged as context canceled, not as an upstream failure.
func TestFinishLog(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		hold    bool // the upstream keeps the stream open after its events
		read    func(t *testing.T, body io.ReadCloser, cancel context.CancelFunc)
		wantErr string // "": the line has no error
	}{
		{"read to the end", false, func(t *testing.T, body io.ReadCloser, _ context.CancelFunc) {
			if _, err := io.ReadAll(body); err != nil {
				t.Fatal(err)
			}
			body.Close()
		}, ""},
		{"closed after the last event", true, func(t *testing.T, body io.ReadCloser, _ context.CancelFunc) {
			readEvents(t, body, 2)
			body.Close()
		}, ""},
		{"cancelled mid-stream", true, func(t *testing.T, body io.ReadCloser, cancel context.CancelFunc) {
			readEvents(t, body, 1)
			cancel()
			if _, err := io.ReadAll(body); err == nil {
				t.Error("a cancelled read ended without an error")
			}
			body.Close()
		}, `error="context canceled"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "data: a\n\ndata: b\n\n")
				w.(http.Flusher).Flush()
				if c.hold {
					<-r.Context().Done()
				}
			}))
			defer srv.Close()
			var logs logbuf.Buffer // safe to read while a tunnel or request still logs
			s := newService(t, &logs, sdk.Auth{}, srv.URL)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			resp, err := s.Do(ctx, &sdk.EgressRequest{Method: "GET", URL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			c.read(t, resp.Body, cancel)
			var line string
			for _, l := range strings.Split(logs.String(), "\n") {
				if strings.Contains(l, " method=GET ") {
					line = l
				}
			}
			switch {
			case line == "":
				t.Fatalf("no request line in the log:\n%s", logs.String())
			case c.wantErr == "" && strings.Contains(line, "error="):
				t.Errorf("a clean finish logged with an error: %s", line)
			case c.wantErr != "" && !strings.Contains(line, c.wantErr):
				t.Errorf("log line %s, want %s", line, c.wantErr)
			case strings.Contains(line, "transient"):
				t.Errorf("logged as an upstream failure: %s", line)
			}
		})
	}
}

// readEvents reads n events of an event stream, and no further.
func readEvents(t *testing.T, body io.Reader, n int) {
	t.Helper()
	r := bufio.NewReaderSize(body, 16)
	for n > 0 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading event: %v", err)
		}
		if line == "\n" {
			n--
		}
	}
}
