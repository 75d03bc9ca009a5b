package api

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testMount is a Mount with routes and an error shape of its own, as the
// sessions API has: GET /v1/things, GET /v1/things/{id}; GET
// /v1/things/ticks, its headers at once, then three ticks, each written and
// flushed once the test sends on next; and POST /v1/things/echo, which reads its body
// (telling firstByte when one byte is in) and answers with its length.
type testMount struct {
	mux       *http.ServeMux
	next      chan struct{}
	firstByte chan struct{}
}

var _ Mount = (*testMount)(nil)

func newTestMount() *testMount {
	m := &testMount{mux: http.NewServeMux(), next: make(chan struct{}), firstByte: make(chan struct{}, 1)}
	m.mux.HandleFunc("GET /v1/things", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "things\n") })
	m.mux.HandleFunc("GET /v1/things/{id}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "thing "+r.PathValue("id")+"\n") })
	m.mux.HandleFunc("GET /v1/things/ticks", func(w http.ResponseWriter, r *http.Request) {
		f, ok := w.(http.Flusher) // as the sessions API's event stream asks for it
		if !ok {
			http.Error(w, "cannot stream", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
		f.Flush()
		for range 3 {
			select {
			case <-m.next:
			case <-r.Context().Done():
				return
			}
			if _, err := io.WriteString(w, "tick\n"); err != nil {
				return
			}
			f.Flush()
		}
	})
	m.mux.HandleFunc("POST /v1/things/echo", func(w http.ResponseWriter, r *http.Request) {
		first := make([]byte, 1)
		if _, err := io.ReadFull(r.Body, first); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		m.firstByte <- struct{}{}
		rest, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "%d bytes\n", 1+len(rest))
	})
	return m
}

func (m *testMount) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.mux.ServeHTTP(w, r) }

func (m *testMount) Refuse(w http.ResponseWriter, status int, code, message string) {
	body, _ := json.Marshal(map[string]any{"mount_error": map[string]any{"status": status, "code": code, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// TestMountIsObserved: a mount's requests reach the Observer like the
// front door's own, under the mount's own route patterns.
func TestMountIsObserved(t *testing.T) {
	t.Parallel()
	obs := &recorderObserver{}
	srv := newServer(t, &fakeBackend{}, WithObserver(obs), WithMount("/v1/things", newTestMount()))
	for _, c := range []struct {
		path, body string
		want       Record
	}{
		{"/v1/things", "things\n", Record{Route: "GET /v1/things", Status: 200}},
		{"/v1/things/7", "thing 7\n", Record{Route: "GET /v1/things/{id}", Status: 200}},
	} {
		resp, err := srv.Client().Get(srv.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, resp.Body); got != c.body {
			t.Errorf("%s: body %q, want %q", c.path, got, c.body)
		}
		resp.Body.Close()
		rec := obs.last(t)
		rec.Latency = 0
		if diff := cmp.Diff(c.want, rec); diff != "" {
			t.Errorf("%s: record (-want +got):\n%s", c.path, diff)
		}
	}
}

// TestMountStreams: a mount's stream flushes through the front door's
// writer: each tick reaches the client before the next is written.
func TestMountStreams(t *testing.T) {
	t.Parallel()
	m := newTestMount()
	srv := newServer(t, &fakeBackend{}, WithMount("/v1/things", m))
	resp, err := srv.Client().Get(srv.URL + "/v1/things/ticks")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, readAll(t, resp.Body))
	}
	br := bufio.NewReader(resp.Body)
	for i := range 3 {
		select {
		case m.next <- struct{}{}:
		case <-time.After(hangGuard):
			t.Fatalf("the mount's stream stopped before tick %d", i)
		}
		if line, err := br.ReadString('\n'); err != nil || line != "tick\n" {
			t.Fatalf("tick %d: %q %v", i, line, err)
		}
	}
}

// TestMountKeepsItsOwnLimits: the front door's body deadline is the
// generation endpoints'. A mount reads its body at its own pace, however
// long the front door's own body timeout.
func TestMountKeepsItsOwnLimits(t *testing.T) {
	t.Parallel()
	const limit = 50 * time.Millisecond
	m := newTestMount()
	addr := serveReal(t, &fakeBackend{}, nil, withBodyTimeout(limit), WithMount("/v1/things", m))
	pr, pw := io.Pipe()
	go func() {
		io.WriteString(pw, "{")
		<-m.firstByte
		time.Sleep(3 * limit) // a body slower than the front door allows its own routes
		io.WriteString(pw, "}")
		pw.Close()
	}()
	client := &http.Client{Timeout: hangGuard}
	resp, err := client.Post("http://"+addr+"/v1/things/echo", "application/json", pr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got := readAll(t, resp.Body); resp.StatusCode != http.StatusOK || got != "2 bytes\n" {
		t.Errorf("the mount's slow body: status %d, %q", resp.StatusCode, got)
	}
}
