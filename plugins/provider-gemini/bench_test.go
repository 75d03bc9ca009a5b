package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// syntheticStream is a long alt=sse body shaped like the recorded ones
// (CRLF CRLF event ends, full usageMetadata on every chunk): n text chunks,
// the last with finishReason. It returns the body and its event count.
func syntheticStream(n int) ([]byte, int) {
	var b bytes.Buffer
	for i := range n {
		finish := ""
		if i == n-1 {
			finish = `,"finishReason": "STOP"`
		}
		fmt.Fprintf(&b, `data: {"candidates": [{"content": {"parts": [{"text": " could also say \"Ol\u00e1!\" %d"}],"role": "model"}%s,"index": 0}],"usageMetadata": {"promptTokenCount": 34,"candidatesTokenCount": %d,"totalTokenCount": %d,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 34}],"thoughtsTokenCount": 787},"modelVersion": "gemini-2.5-pro","responseId": "beHBaJfEMIi-qtsP3769-Q8"}`+"\r\n\r\n", i, finish, i+1, 822+i)
	}
	return b.Bytes(), n
}

func benchBodies(b *testing.B) []sdktest.BenchBody {
	b.Helper()
	text, n := syntheticStream(2000)
	bodies := []sdktest.BenchBody{{Name: "synthetic-text-2000", Body: text, Units: n}}
	return append(bodies, sdktest.RecordedBodies(b, sharedFixtures, []string{"stream-generate-content-thinking-text.sse", "stream-generate-content-gemini3-parallel-function-calls.sse"}, sdktest.CountSSEEvents)...)
}

// BenchmarkDecodeStream measures the whole path from body bytes to sdk
// events: framing, JSON decoding, usage and call handling.
func BenchmarkDecodeStream(b *testing.B) {
	discard := sdk.SinkFunc(func(context.Context, sdk.Event) error { return nil })
	sdktest.BenchDecode(b, benchBodies(b), "event", func(r io.Reader) error {
		return decodeStream(context.Background(), r, newTurn(discard, testModel, "seed"))
	})
}
