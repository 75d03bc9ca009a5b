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
		hi   = `{"model":"q","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"Hi"},"done":false}` + "\n"
		bad  = `{"model":"q","message":{"content":"th` + "\n"
		more = `{"model":"q","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":" there"},"done":false}` + "\n"
		done = `{"model":"q","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"prompt_eval_count":3,"eval_count":2}` + "\n"
	)
	sdktest.CheckSkip(t, func(body string, strict bool, out sdk.Sink) error {
		tr := newTurn(out)
		tr.s.Strict = strict
		return decodeStream(context.Background(), strings.NewReader(body), tr)
	}, sdktest.SkipBodies{Complete: hi + bad + more + done, NoEnd: hi + bad + more})
}
