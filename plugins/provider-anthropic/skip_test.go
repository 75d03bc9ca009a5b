package main

import (
	"context"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// TestUndecodableEventIsSkipped: an event whose data is not JSON is passed
// over and counted on the finish; with strict_stream it fails the reply as
// malformed_chunk; skipped or not, a stream without its end is cut.
func TestUndecodableEventIsSkipped(t *testing.T) {
	t.Parallel()
	const (
		hi = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-x\",\"usage\":{\"input_tokens\":3}}}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n"
		bad  = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_de\n\n"
		more = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" there\"}}\n\n" +
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n"
		done = "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	)
	sdktest.CheckSkip(t, func(body string, strict bool, out sdk.Sink) error {
		tr := newTurn(out)
		tr.s.Strict = strict
		return decodeStream(context.Background(), strings.NewReader(body), tr)
	}, sdktest.SkipBodies{Complete: hi + bad + more + done, NoEnd: hi + bad + more})
}
