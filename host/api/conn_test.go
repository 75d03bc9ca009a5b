package api

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
)

// hangGuard bounds every wait on a connection in these tests. It is no
// claim: the limits under test are a fraction of it, and reaching it fails.
const hangGuard = 10 * time.Second

// serveReal serves New(b, opts...) on loopback with the http.Server that
// HTTPServer builds, its connection limits lowered by tune when it is not
// nil, and returns its address.
func serveReal(t *testing.T, b Backend, tune func(*http.Server), opts ...Option) string {
	t.Helper()
	opts = append([]Option{fixedIDs(), withClock(func() time.Time { return testTime })}, opts...)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := HTTPServer(New(b, opts...))
	if tune != nil {
		tune(srv)
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

// dial opens a raw connection to addr with the hang guard as its deadline.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.SetDeadline(time.Now().Add(hangGuard)); err != nil {
		t.Fatal(err)
	}
	return c
}

// rawExchange writes raw on a new connection and reads the response to it;
// the reader then holds what follows on the connection.
func rawExchange(t *testing.T, addr, raw string) (*http.Response, string, *bufio.Reader) {
	t.Helper()
	c := dial(t, addr)
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no response before the connection ended: %v", err)
	}
	return resp, readAll(t, resp.Body), br
}

// closedByServer reads r until the server closes the connection, failing
// if the hang guard fires first. It returns what was read.
func closedByServer(t *testing.T, r io.Reader) string {
	t.Helper()
	b, err := io.ReadAll(r)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the server kept the connection open for %s (read so far: %q)", hangGuard, b)
	}
	return string(b) // io.EOF or a reset: closed either way
}

// TestHTTPServerLimits: the http.Server of the front door has its
// connection limits, and neither a ReadTimeout nor a WriteTimeout, which
// would cut long streams (the handler bounds the body and write stalls).
func TestHTTPServerLimits(t *testing.T) {
	t.Parallel()
	srv := HTTPServer(http.NotFoundHandler())
	if srv.ReadHeaderTimeout != DefaultReadHeaderTimeout || srv.IdleTimeout != DefaultIdleTimeout || srv.MaxHeaderBytes != DefaultMaxHeaderBytes {
		t.Errorf("limits %v %v %v, want %v %v %v", srv.ReadHeaderTimeout, srv.IdleTimeout, srv.MaxHeaderBytes,
			DefaultReadHeaderTimeout, DefaultIdleTimeout, DefaultMaxHeaderBytes)
	}
	if srv.ReadTimeout != 0 || srv.WriteTimeout != 0 {
		t.Errorf("ReadTimeout %v, WriteTimeout %v, want none", srv.ReadTimeout, srv.WriteTimeout)
	}
}

// TestConnectionLimits: clients that send headers or a body too slowly,
// or keep an idle connection, are disconnected within the configured
// limits; a body too slow is answered with 408 in the client's format first.
func TestConnectionLimits(t *testing.T) {
	t.Parallel()
	const limit = 100 * time.Millisecond
	addr := serveReal(t, &fakeBackend{events: okEvents}, func(srv *http.Server) {
		srv.ReadHeaderTimeout, srv.IdleTimeout, srv.MaxHeaderBytes = limit, limit, 1<<10
	}, withBodyTimeout(limit))

	t.Run("slow headers", func(t *testing.T) {
		t.Parallel()
		c := dial(t, addr)
		if _, err := io.WriteString(c, "POST /v1/messages HTTP/1.1\r\nHost: axon\r\nContent-Type: appl"); err != nil {
			t.Fatal(err)
		}
		closedByServer(t, c)
	})
	for _, f := range []struct{ path, want string }{
		{"/v1/chat/completions", `{"error":{"message":"the request body did not arrive within 100ms","type":"invalid_request_error","param":null,"code":"request_timeout"}}`},
		{"/v1/messages", `{"type":"error","error":{"type":"invalid_request_error","message":"the request body did not arrive within 100ms"}}`},
	} {
		t.Run("slow body "+f.path, func(t *testing.T) {
			t.Parallel()
			resp, body, br := rawExchange(t, addr, "POST "+f.path+" HTTP/1.1\r\nHost: axon\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"model\":")
			if resp.StatusCode != http.StatusRequestTimeout {
				t.Fatalf("status %d, want 408: %s", resp.StatusCode, body)
			}
			sameJSON(t, body, f.want)
			closedByServer(t, br)
		})
	}
	t.Run("slow body of a request refused unread", func(t *testing.T) {
		t.Parallel()
		resp, _, br := rawExchange(t, addr, "POST /v1/nothing HTTP/1.1\r\nHost: axon\r\nContent-Length: 1000\r\n\r\n{")
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("status %d, want 404", resp.StatusCode)
		}
		closedByServer(t, br) // net/http reads the rest of the body after the handler: bounded too
	})
	t.Run("idle keep-alive", func(t *testing.T) {
		t.Parallel()
		resp, _, br := rawExchange(t, addr, "GET /healthz HTTP/1.1\r\nHost: axon\r\n\r\n")
		if resp.Close {
			t.Fatal("the server closed the connection after the response: nothing to test")
		}
		if rest := closedByServer(t, br); rest != "" {
			t.Errorf("unexpected bytes on an idle connection: %q", rest)
		}
	})
	t.Run("headers over the limit", func(t *testing.T) {
		t.Parallel()
		// net/http allows 4 KiB over MaxHeaderBytes; this is well past both.
		resp, _, _ := rawExchange(t, addr, "GET /healthz HTTP/1.1\r\nHost: axon\r\nX-Big: "+strings.Repeat("a", 16<<10)+"\r\n\r\n")
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("status %d, want 431", resp.StatusCode)
		}
	})
}

// TestBodyTimeoutSparesStreams: the body deadline ends with the body. A
// stream that lasts several times longer completes, its context intact.
func TestBodyTimeoutSparesStreams(t *testing.T) {
	t.Parallel()
	const limit = 50 * time.Millisecond
	b := &fakeBackend{gen: func(ctx context.Context, _ string, _ *sdk.Request, out sdk.Sink, commit func(Answer)) (*Answer, error) {
		if err := out.Send(ctx, text("a")); err != nil {
			return nil, err
		}
		select {
		case <-time.After(4 * limit): // a generation that outlasts the body deadline
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		for _, ev := range []sdk.Event{text("b"), finish(sdk.FinishStop)} {
			if err := out.Send(ctx, ev); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}}
	addr := serveReal(t, b, nil, withBodyTimeout(limit))
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/v1/chat/completions",
		strings.NewReader(`{"model":"default","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if body := readAll(t, resp.Body); !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Errorf("the stream did not complete: %s", body)
	}
}

// TestWriteStall: a client that sends its request and then reads nothing
// holds no handler and no backend call beyond the stall limit, streamed or
// whole: the writes fail, the backend's Send says the client left, and the
// request is recorded as Canceled.
func TestWriteStall(t *testing.T) {
	t.Parallel()
	chunk := strings.Repeat("s", 64<<10)
	for _, c := range []struct {
		name, body string
	}{
		{"stream", `{"model":"default","stream":true,"messages":[{"role":"user","content":"hi"}]}`},
		{"whole", openaiAsk},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sendErr := make(chan error, 1)
			b := &fakeBackend{gen: func(ctx context.Context, _ string, _ *sdk.Request, out sdk.Sink, commit func(Answer)) (*Answer, error) {
				for range 512 { // 32 MiB: far more than the socket buffers hold, under the answer limit
					if err := out.Send(ctx, text(chunk)); err != nil {
						sendErr <- err
						return nil, err
					}
				}
				sendErr <- nil
				return nil, out.Send(ctx, finish(sdk.FinishStop))
			}}
			obs := make(chanObserver, 1)
			addr := serveReal(t, b, nil, withWriteStall(100*time.Millisecond), WithObserver(obs))
			conn := dial(t, addr)
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetReadBuffer(4 << 10)
			}
			req := "POST /v1/chat/completions HTTP/1.1\r\nHost: axon\r\nContent-Type: application/json\r\nContent-Length: " +
				strconv.Itoa(len(c.body)) + "\r\n\r\n" + c.body
			if _, err := io.WriteString(conn, req); err != nil {
				t.Fatal(err)
			}
			var rec Record
			select {
			case rec = <-obs:
			case <-time.After(hangGuard):
				t.Fatal("the handler is still writing to a client that reads nothing")
			}
			if c.name == "stream" {
				if err := <-sendErr; !errors.Is(err, context.Canceled) {
					t.Errorf("Send to a stalled client: %v, want an error wrapping context.Canceled", err)
				}
			}
			if !rec.Canceled || rec.Status != StatusClientClosedRequest {
				t.Errorf("record %+v: want Canceled with status 499", rec)
			}
		})
	}
}

// TestWriteStallStaysWithItsRequest: the front door's write deadline ends
// with its request, so a connection that goes on to another handler mounted
// beside it (the sessions API streams for hours) is not cut by a deadline
// it never asked for.
func TestWriteStallStaysWithItsRequest(t *testing.T) {
	t.Parallel()
	const stall = 50 * time.Millisecond
	front := New(&fakeBackend{events: okEvents}, withWriteStall(stall))
	mux := http.NewServeMux()
	mux.Handle("/", front)
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		for i := range 3 {
			if _, err := io.WriteString(w, "tick\n"); err != nil || rc.Flush() != nil {
				return
			}
			if i < 2 {
				time.Sleep(2 * stall) // a stream with pauses longer than the front door's stall limit
			}
		}
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := HTTPServer(mux)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}, Timeout: hangGuard}
	defer client.CloseIdleConnections()
	base := "http://" + l.Addr().String()
	resp, err := client.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(openaiAsk))
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, resp.Body)
	resp.Body.Close()
	resp, err = client.Get(base + "/other") // the same connection: one per host
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got := readAll(t, resp.Body); got != "tick\ntick\ntick\n" {
		t.Errorf("the other handler's stream was cut: %q", got)
	}
}
