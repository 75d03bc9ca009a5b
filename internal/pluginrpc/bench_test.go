package pluginrpc

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// benchBody is what the bench harness's mock upstream streams for one chat
// completion: 16 content chunks, the finish and [DONE] (about 4.6 kB).
var benchBody = func() []byte {
	var b bytes.Buffer
	pre := `data: {"id":"chatcmpl-mock","object":"chat.completion.chunk","created":1764633600,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{`
	b.WriteString(pre + `"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n")
	for range 16 {
		b.WriteString(pre + `"content":"lorem "},"finish_reason":null}]}` + "\n\n")
	}
	b.WriteString(pre + `},"finish_reason":"stop"}]}` + "\n\n" + "data: [DONE]\n\n")
	return b.Bytes()
}()

// benchRequestBody is a small chat request, as the plugin sends it.
var benchRequestBody = []byte(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Say hello."}],"stream":true,"stream_options":{"include_usage":true}}`)

// chunkedBody returns b in reads of at most n bytes, as an upstream's
// socket delivers a streamed reply.
type chunkedBody struct {
	b []byte
	n int
}

func (c *chunkedBody) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}

func (c *chunkedBody) Close() error { return nil }

// BenchmarkEgress is one plugin request through the host's egress over
// gRPC: the head and a small body up, the status, headers and a 4.6 kB
// streamed body down (in upstream reads of 512 bytes), read by the plugin
// with one buffer. The upstream is an in-memory fake, so what is measured
// is the protocol. "declared" gives the body's Content-Length, as
// sdk.HTTPClient does for a body in memory; "streamed" does not.
func BenchmarkEgress(b *testing.B) {
	c := egressPair(b, egressFunc(func(_ context.Context, req *sdk.EgressRequest) (*sdk.EgressResponse, error) {
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return nil, err
		}
		h := http.Header{"Content-Type": {"text/event-stream"}, "Date": {"Tue, 02 Dec 2026 03:00:00 GMT"}}
		return &sdk.EgressResponse{StatusCode: 200, Header: h, Body: &chunkedBody{b: benchBody, n: 512}}, nil
	}))
	ctx := context.Background()
	buf := make([]byte, 32<<10)
	for _, declared := range []bool{false, true} {
		header := http.Header{"Content-Type": {"application/json"}, "Accept": {"text/event-stream, application/json"}}
		name := "streamed"
		if declared {
			header.Set("Content-Length", strconv.Itoa(len(benchRequestBody)))
			name = "declared"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(benchBody)))
			for b.Loop() {
				resp, err := c.Do(ctx, &sdk.EgressRequest{Method: "POST", URL: "http://127.0.0.1:9/v1/chat/completions", Header: header, Body: bytes.NewReader(benchRequestBody)})
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for {
					k, err := resp.Body.Read(buf)
					n += k
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				resp.Body.Close()
				if n != len(benchBody) {
					b.Fatalf("read %d bytes, want %d", n, len(benchBody))
				}
			}
		})
	}
}

// BenchmarkGenerate is one streamed answer from a plugin to the host over
// gRPC: start, 16 text deltas, usage and finish, into a sink that takes
// each event at once.
func BenchmarkGenerate(b *testing.B) {
	c := providerPair(b, provideFunc(func(ctx context.Context, _ *sdk.Request, out sdk.Sink) error {
		s := sdk.NewStream(out, "gpt-4o-mini")
		for range 16 {
			if err := s.Text(ctx, "lorem "); err != nil {
				return err
			}
		}
		s.Usage(&sdk.Usage{InputTokens: sdk.Tokens(12), OutputTokens: sdk.Tokens(16)})
		return s.Finish(ctx, sdk.FinishStop)
	}))
	ctx := context.Background()
	req := &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "Say hello."}}}}}
	var text strings.Builder
	sink := sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error {
		text.WriteString(ev.Text)
		return nil
	})
	b.ReportAllocs()
	for b.Loop() {
		text.Reset()
		if err := c.Generate(ctx, req, sink); err != nil {
			b.Fatal(err)
		}
		if text.Len() != 16*len("lorem ") {
			b.Fatalf("got %q", text.String())
		}
	}
}
