package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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

func benchBodies(b *testing.B) []sdktest.BenchBody {
	b.Helper()
	text, textLines := syntheticStream(2000, false)
	tools, toolLines := syntheticStream(2000, true)
	bodies := []sdktest.BenchBody{{Name: "synthetic-text-2000", Body: text, Units: textLines}, {Name: "synthetic-thinking-tools-2000", Body: tools, Units: toolLines}}
	return append(bodies, sdktest.RecordedBodies(b, sharedFixtures, []string{"api-chat-stream.txt"}, sdktest.CountLines)...)
}

// BenchmarkLineReader measures NDJSON framing alone.
func BenchmarkLineReader(b *testing.B) {
	sdktest.BenchDecode(b, benchBodies(b), "line", func(r io.Reader) error {
		l := newLineReader(r)
		for {
			if _, err := l.Next(); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
		}
	})
}

// BenchmarkDecodeStream measures the whole path from body bytes to sdk
// events: framing, JSON decoding, tool call normalisation.
func BenchmarkDecodeStream(b *testing.B) {
	discard := sdk.SinkFunc(func(context.Context, sdk.Event) error { return nil })
	sdktest.BenchDecode(b, benchBodies(b), "line", func(r io.Reader) error {
		return decodeStream(context.Background(), r, newTurn(discard))
	})
}
