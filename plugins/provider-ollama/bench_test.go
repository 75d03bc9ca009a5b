package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// syntheticStream is a long, valid /api/chat stream shaped like the
// recorded ones: n content deltas (or n thinking deltas, then one line with
// two tool calls), then the done line. It returns the body and its line count.
func syntheticStream(n int, tools bool) ([]byte, int) {
	var b bytes.Buffer
	for i := range n {
		field := "content"
		if tools {
			field = "thinking"
		}
		fmt.Fprintf(&b, `{"model":"qwen3:4b","created_at":"2025-08-20T13:48:24.%06dZ","message":{"role":"assistant","%s":" could also say \"Oi!\""},"done":false}`+"\n", i, field)
	}
	if tools {
		b.WriteString(`{"model":"qwen3:4b","created_at":"2025-08-20T13:48:25.1Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"weather","arguments":{"location":"Florence"}}},{"function":{"name":"weather","arguments":{"location":"Rome","unit":"celsius"}}}]},"done":false}` + "\n")
		n++
	}
	b.WriteString(`{"model":"qwen3:4b","created_at":"2025-08-20T13:48:25.2Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":171946792,"load_duration":38473250,"prompt_eval_count":16,"prompt_eval_duration":27608250,"eval_count":22,"eval_duration":105611917}` + "\n")
	return b.Bytes(), n + 1
}

type benchBody struct {
	name  string
	body  []byte
	lines int
}

func benchBodies(b *testing.B) []benchBody {
	b.Helper()
	text, textLines := syntheticStream(2000, false)
	tools, toolLines := syntheticStream(2000, true)
	bodies := []benchBody{{"synthetic-text-2000", text, textLines}, {"synthetic-thinking-tools-2000", tools, toolLines}}
	body, err := os.ReadFile(filepath.Join(sharedFixtures, "api-chat-stream.txt"))
	if err == nil { // the shared set is optional
		bodies = append(bodies, benchBody{"recorded-api-chat-stream", body, bytes.Count(body, []byte("\n"))})
	}
	return bodies
}

// BenchmarkLineReader measures NDJSON framing alone.
func BenchmarkLineReader(b *testing.B) {
	for _, bb := range benchBodies(b) {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			rd := bytes.NewReader(bb.body)
			run := func() {
				rd.Reset(bb.body)
				l := newLineReader(rd)
				for {
					if _, err := l.Next(); err != nil {
						return
					}
				}
			}
			b.SetBytes(int64(len(bb.body)))
			sdktest.ReportAllocsPer(b, bb.lines, "line", run)
		})
	}
}

// BenchmarkDecodeStream measures the whole path from body bytes to sdk
// events: framing, JSON decoding, tool call normalisation.
func BenchmarkDecodeStream(b *testing.B) {
	discard := sdk.SinkFunc(func(context.Context, sdk.Event) error { return nil })
	ctx := context.Background()
	for _, bb := range benchBodies(b) {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			rd := bytes.NewReader(bb.body)
			run := func() {
				rd.Reset(bb.body)
				if err := decodeStream(ctx, rd, &turn{out: discard}); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(bb.body)))
			sdktest.ReportAllocsPer(b, bb.lines, "line", run)
		})
	}
}
