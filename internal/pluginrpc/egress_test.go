package pluginrpc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/test/bufconn"

	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

// TestEgressRequestBodies: what the host's egress receives of a plugin's
// request body: a small one whose length is declared arrives whole (in
// memory, sent with the head), any other is streamed; either way
// byte for byte. A body that disagrees with its declared length is refused
// in the plugin.
func TestEgressRequestBodies(t *testing.T) {
	t.Parallel()
	type received struct {
		Whole bool
		Body  string
	}
	got := make(chan received, 1)
	c := egressPair(t, egressFunc(func(_ context.Context, req *sdk.EgressRequest) (*sdk.EgressResponse, error) {
		_, whole := req.Body.(*bytes.Reader)
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		got <- received{whole, string(b)}
		return &sdk.EgressResponse{StatusCode: 204, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}, nil
	}))
	big := strings.Repeat("x", chunkSize+10)
	for _, tc := range []struct {
		name    string
		length  string // the Content-Length header; "": none
		body    string
		want    *received
		wantErr string
	}{
		{name: "declared and small", length: "7", body: `{"a":1}`, want: &received{true, `{"a":1}`}},
		{name: "declared empty", length: "0", body: "", want: &received{true, ""}},
		{name: "undeclared", body: `{"a":1}`, want: &received{false, `{"a":1}`}},
		{name: "declared, larger than a message", length: "32778", body: big, want: &received{false, big}},
		{name: "longer than declared", length: "3", body: `{"a":1}`, wantErr: "longer than its Content-Length 3"},
		{name: "shorter than declared", length: "9", body: `{"a":1}`, wantErr: "7 bytes of its Content-Length 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.length != "" {
				h.Set("Content-Length", tc.length)
			}
			resp, err := c.Do(context.Background(), &sdk.EgressRequest{Method: "POST", URL: "http://127.0.0.1:9/v1", Header: h, Body: strings.NewReader(tc.body)})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if diff := cmp.Diff(*tc.want, <-got); diff != "" {
				t.Errorf("the egress received (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEgressRedialsARefusedFirstDial: go-plugin's multiplexed broker can
// refuse the plugin's first dial of the egress (its knock arrives before
// the host registered the listener). With EgressDialOptions the first
// call waits for the redial, 10 ms later, instead of failing with
// Unavailable, as every egress call of a fresh plugin did for a second.
func TestEgressRedialsARefusedFirstDial(t *testing.T) {
	t.Parallel()
	var dials atomic.Int32
	conn := connectWith(t, func(s *grpc.Server) {
		pb.RegisterEgressServer(s, &egressServer{impl: egressFunc(func(context.Context, *sdk.EgressRequest) (*sdk.EgressResponse, error) {
			return &sdk.EgressResponse{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("ok"))}, nil
		})})
	}, EgressDialOptions(), func(ctx context.Context, ln *bufconn.Listener) (net.Conn, error) {
		if dials.Add(1) == 1 {
			return nil, errors.New("failed to knock for id 2: no listener for id 2")
		}
		return ln.DialContext(ctx)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard
	defer cancel()
	resp, err := (&egressClient{client: pb.NewEgressClient(conn)}).Do(ctx, &sdk.EgressRequest{Method: "GET", URL: "http://127.0.0.1:9/", Header: http.Header{}})
	if err != nil {
		t.Fatalf("the first call after a refused dial: %v", err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); string(b) != "ok" || dials.Load() < 2 {
		t.Errorf("got %q after %d dials, want ok after a redial", b, dials.Load())
	}
}

// TestEgressReplyMessages: the host sends a reply in the messages its reads
// make, in an 8 KB buffer until a read fills it and in 32 KB ones after: a
// stream of small events never holds a big buffer, and a bulk body moves
// to big messages after its first. The plugin reads each message whole
// with a buffer larger than any, so its reads are the messages.
func TestEgressReplyMessages(t *testing.T) {
	t.Parallel()
	bulk := bytes.Repeat([]byte("x"), 100<<10)
	cases := []struct {
		name string
		body io.ReadCloser
		want []int
	}{
		{"stream of small events", &chunkedBody{b: bytes.Repeat([]byte("e"), 5*512), n: 512}, []int{512, 512, 512, 512, 512}},
		{"a small reply whole", io.NopCloser(bytes.NewReader(bulk[:5000])), []int{5000}},
		{"events up to the small buffer", &chunkedBody{b: bytes.Repeat([]byte("e"), 8192+100), n: 8192}, []int{8192, 100}},
		{"bulk body", io.NopCloser(bytes.NewReader(bulk)), []int{8 << 10, 32 << 10, 32 << 10, 28 << 10}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := egressPair(t, egressFunc(func(context.Context, *sdk.EgressRequest) (*sdk.EgressResponse, error) {
				return &sdk.EgressResponse{StatusCode: 200, Header: http.Header{}, Body: tc.body}, nil
			}))
			resp, err := c.Do(context.Background(), &sdk.EgressRequest{Method: "GET", URL: "http://127.0.0.1:9/"})
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			buf := make([]byte, 64<<10)
			var got []int
			for {
				n, err := resp.Body.Read(buf)
				if n > 0 {
					got = append(got, n)
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("message sizes (-want +got):\n%s", diff)
			}
		})
	}
}
