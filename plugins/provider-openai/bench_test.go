package main

import (
	"context"
	"errors"
	"io"
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
