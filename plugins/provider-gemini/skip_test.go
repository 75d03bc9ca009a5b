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
		hi   = "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}],\"role\":\"model\"}}]}\n\n"
		bad  = "data: {\"candidates\": [{\"content\": \n\n"
		more = "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\" there\"}],\"role\":\"model\"}}]}\n\n"
		done = "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}],\"role\":\"model\"},\"finishReason\":\"STOP\"}]}\n\n"
	)
	sdktest.CheckSkip(t, func(body string, strict bool, out sdk.Sink) error {
		tr := newTurn(out, "gemini-x", "seed")
		tr.s.Strict = strict
		return decodeStream(context.Background(), strings.NewReader(body), tr)
	}, sdktest.SkipBodies{Complete: hi + bad + more + done, NoEnd: hi + bad + more})
}
