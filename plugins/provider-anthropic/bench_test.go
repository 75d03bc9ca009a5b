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

// syntheticStream is a long, valid Messages stream shaped like the recorded
// ones (whitespace-padded JSON, pings): n text deltas, or a tool call whose
// input arrives in n fragments. It returns the body and its event count.
func syntheticStream(n int, tool bool) ([]byte, int) {
	var b bytes.Buffer
	events := 0
	emit := func(name, data string) {
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, data)
		events++
	}
	emit("message_start", `{"type":"message_start","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_01","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":16,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}}}   `)
	if tool {
		emit("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_01","name":"write","input":{}}}`)
		emit("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"text\": \""}}`)
	} else {
		emit("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}            `)
	}
	for i := range n {
		if i%50 == 0 {
			emit("ping", `{"type": "ping"}`)
		}
		if tool {
			emit("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"lorem ipsum dolor "}}      `)
		} else {
			emit("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" could also say \"Oi!\""}}           `)
		}
	}
	if tool {
		emit("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"}"}}`)
	}
	emit("content_block_stop", `{"type":"content_block_stop","index":0            }`)
	emit("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":38}}            `)
	emit("message_stop", `{"type":"message_stop"       }`)
	return b.Bytes(), events
}

// countEvents counts the SSE events of body.
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
	text, textEvents := syntheticStream(2000, false)
	tool, toolEvents := syntheticStream(2000, true)
	bodies := []benchBody{{"synthetic-text-2000", text, textEvents}, {"synthetic-tool-json-2000", tool, toolEvents}}
	for _, name := range []string{"messages-text-stream.sse", "messages-parallel-tool-use-stream.sse"} {
		body, err := os.ReadFile(filepath.Join(sharedFixtures, name))
		if err != nil {
			continue // the shared set is optional
		}
		bodies = append(bodies, benchBody{"recorded-" + name, body, countEvents(b, body)})
	}
	return bodies
}

// BenchmarkDecodeStream measures the whole path from body bytes to sdk
// events: framing, JSON decoding, fragment assembly.
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
			sdktest.ReportAllocsPer(b, bb.events, "event", run)
		})
	}
}
