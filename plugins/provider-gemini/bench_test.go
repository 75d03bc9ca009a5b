package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
	"github.com/axonhq/axon/sdk/sse"
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

func countEvents(b *testing.B, body []byte) int {
	b.Helper()
	r := sse.NewReader(bytes.NewReader(body))
	n := 0
	for {
		if _, err := r.Next(); err != nil {
			if err != io.EOF {
				b.Fatal(err)
			}
			return n
		}
		n++
	}
}

type benchBody struct {
	name   string
	body   []byte
	events int
}

func benchBodies(b *testing.B) []benchBody {
	b.Helper()
	text, n := syntheticStream(2000)
	bodies := []benchBody{{"synthetic-text-2000", text, n}}
	for _, name := range []string{"stream-generate-content-thinking-text.sse", "stream-generate-content-gemini3-parallel-function-calls.sse"} {
		body, err := os.ReadFile(filepath.Join(sharedFixtures, name))
		if err != nil {
			continue // the shared set is optional
		}
		bodies = append(bodies, benchBody{"recorded-" + name, body, countEvents(b, body)})
	}
	return bodies
}

// BenchmarkDecodeStream measures the whole path from body bytes to sdk
// events: framing, JSON decoding, usage and call handling.
func BenchmarkDecodeStream(b *testing.B) {
	discard := sdk.SinkFunc(func(context.Context, sdk.Event) error { return nil })
	ctx := context.Background()
	for _, bb := range benchBodies(b) {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			rd := bytes.NewReader(bb.body)
			run := func() {
				rd.Reset(bb.body)
				if err := decodeStream(ctx, rd, newTurn(discard, testModel, "seed")); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(bb.body)))
			sdktest.ReportAllocsPer(b, bb.events, "event", run)
		})
	}
}
