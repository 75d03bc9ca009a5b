package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// benchStream is a recorded stream: every event a text or reasoning delta,
// the commonest shape on the wire.
const benchStream = "deepseek/chat-reasoning-stream.sse"

// BenchmarkSSEDecoder measures the SSE framing alone: bytes in, events out.
func BenchmarkSSEDecoder(b *testing.B) {
	sdktest.BenchDecode(b, recordedBody(b, benchStream), "event", func(r io.Reader) error {
		sr := newEventReader(r)
		for {
			if _, err := sr.Next(); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
		}
	})
}

// BenchmarkDecodeStream measures the whole path a streamed reply takes:
// SSE framing, chunk or event JSON, assembly and events into a sink, for
// both wire families.
func BenchmarkDecodeStream(b *testing.B) {
	sink := sdk.SinkFunc(func(context.Context, sdk.Event) error { return nil })
	for _, c := range []struct{ name, api string }{
		{benchStream, apiChat},
		{"openai/chat-parallel-tool-calls-stream-2.sse", apiChat},
		{"openai/responses-reasoning-summary-function-call-stream.sse", apiResponses},
	} {
		decode := wireFor(c.api).decodeStream
		sdktest.BenchDecode(b, recordedBody(b, c.name), "event", func(r io.Reader) error {
			return decode(context.Background(), r, newTurn(sink, "m", nil))
		})
	}
}

// recordedBody reads one shared fixture, which must exist.
func recordedBody(b *testing.B, rel string) []sdktest.BenchBody {
	b.Helper()
	bodies := sdktest.RecordedBodies(b, sharedFixtures, []string{rel}, sdktest.CountSSEEvents)
	if len(bodies) != 1 {
		b.Fatalf("fixture %s is missing", rel)
	}
	return bodies
}

// mockReply is what the bench harness's mock upstream answers (bench/
// mockupstream, 16 chunks): a streamed chat completion with usage, or the
// whole completion.
func mockReply(stream bool) (contentType string, body []byte) {
	pre := `data: {"id":"chatcmpl-mock-1","object":"chat.completion.chunk","created":1764633600,"model":"gpt-4o-mini","system_fingerprint":"fp_mock","choices":`
	if !stream {
		return "application/json", []byte(`{"id":"chatcmpl-mock-1","object":"chat.completion","created":1764633600,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"` +
			strings.Repeat("lorem ", 16) + `","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":16,"total_tokens":28},"system_fingerprint":"fp_mock"}`)
	}
	var b strings.Builder
	b.WriteString(pre + `[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")
	for range 16 {
		b.WriteString(pre + `[{"index":0,"delta":{"content":"lorem "},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")
	}
	b.WriteString(pre + `[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}` + "\n\n")
	b.WriteString(pre + `[],"usage":{"prompt_tokens":12,"completion_tokens":16,"total_tokens":28}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return "text/event-stream; charset=utf-8", []byte(b.String())
}

// BenchmarkGenerate is one whole Generate in the plugin, as the overhead
// benchmark sends it, against an in-memory egress answering as the mock
// upstream does: request encoding, the HTTP client, reply decoding and the
// events. gRPC is measured in internal/pluginrpc.
func BenchmarkGenerate(b *testing.B) {
	for _, stream := range []bool{false, true} {
		name := "whole"
		if stream {
			name = "stream"
		}
		b.Run(name, func(b *testing.B) {
			contentType, body := mockReply(stream)
			egress := sdktest.EgressFunc(func(_ context.Context, req *sdk.EgressRequest) (*sdk.EgressResponse, error) {
				if _, err := io.Copy(io.Discard, req.Body); err != nil {
					return nil, err
				}
				h := http.Header{"Content-Type": {contentType}}
				return &sdk.EgressResponse{StatusCode: 200, Header: h, Body: io.NopCloser(bytes.NewReader(body))}, nil
			})
			p := &openai{}
			if err := p.Configure(context.Background(), sdk.Config{Values: json.RawMessage(`{"base_url":"http://127.0.0.1:9/v1","model":"gpt-4o-mini"}`), Egress: egress}); err != nil {
				b.Fatal(err)
			}
			req := &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "Say hello."}}}}}
			n := 0
			sink := sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error {
				n += len(ev.Text)
				return nil
			})
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				n = 0
				if err := p.Generate(ctx, req, sink); err != nil {
					b.Fatal(err)
				}
				if n != 16*len("lorem ") {
					b.Fatalf("%d bytes of text", n)
				}
			}
		})
	}
}
