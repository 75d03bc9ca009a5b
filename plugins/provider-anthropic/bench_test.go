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

func benchBodies(b *testing.B) []sdktest.BenchBody {
	b.Helper()
	text, textEvents := syntheticStream(2000, false)
	tool, toolEvents := syntheticStream(2000, true)
	bodies := []sdktest.BenchBody{{Name: "synthetic-text-2000", Body: text, Units: textEvents}, {Name: "synthetic-tool-json-2000", Body: tool, Units: toolEvents}}
	return append(bodies, sdktest.RecordedBodies(b, sharedFixtures, []string{"messages-text-stream.sse", "messages-parallel-tool-use-stream.sse"}, sdktest.CountSSEEvents)...)
}

// BenchmarkDecodeStream measures the whole path from body bytes to sdk
// events: framing, JSON decoding, fragment assembly.
func BenchmarkDecodeStream(b *testing.B) {
	discard := sdk.SinkFunc(func(context.Context, sdk.Event) error { return nil })
	sdktest.BenchDecode(b, benchBodies(b), "event", func(r io.Reader) error {
		return decodeStream(context.Background(), r, newTurn(discard))
	})
}
