package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// TestUndecodableEventIsSkipped: an event whose data is not JSON is passed
// over and counted on the finish; with strict_stream it fails the reply as
// malformed_chunk; skipped or not, a stream without its end is cut.
func TestUndecodableEventIsSkipped(t *testing.T) {
	t.Parallel()
	const (
		chatHi   = `data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"Hi"}}]}` + "\n\n"
		chatBad  = `data: {"id":"c1","choices":[{"index":0,"delta":{"content":"th` + "\n\n"
		chatMore = `data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":" there"},"finish_reason":"stop"}]}` + "\n\n"
		chatDone = "data: [DONE]\n\n"

		respHi   = `data: {"type":"response.output_text.delta","delta":"Hi"}` + "\n\n"
		respBad  = "data: {not json\n\n"
		respMore = `data: {"type":"response.output_text.delta","delta":" there"}` + "\n\n"
		respDone = `data: {"type":"response.completed","response":{"id":"r1","model":"m","status":"completed"}}` + "\n\n"
	)
	answer := []sdk.Event{
		{Type: sdk.EventStart, Model: "m"},
		{Type: sdk.EventTextDelta, Text: "Hi"},
		{Type: sdk.EventTextDelta, Text: " there"},
		{Type: sdk.EventFinish, Finish: sdk.FinishStop, Skipped: 1},
	}
	for _, c := range []struct {
		name     string
		decode   func(context.Context, *strings.Reader, *turn) error
		body     string
		strict   bool
		want     []sdk.Event // nil: only the error is checked
		wantCode string      // "" : success
	}{
		{"chat: skipped, answer complete", chatDecode, chatHi + chatBad + chatMore + chatDone, false, answer, ""},
		{"chat: strict fails", chatDecode, chatHi + chatBad + chatMore + chatDone, true, nil, "malformed_chunk"},
		{"chat: skipped and no [DONE] is cut", chatDecode, chatHi + chatMore + chatBad, false, nil, "cut_stream"},
		{"responses: skipped, answer complete", respDecode, respHi + respBad + respMore + respDone, false, answer, ""},
		{"responses: strict fails", respDecode, respHi + respBad + respMore + respDone, true, nil, "malformed_chunk"},
		{"responses: skipped and no completion is cut", respDecode, respHi + respBad + respMore, false, nil, "cut_stream"},
		{"responses: an error event is never skipped", respDecode, respHi + "event: error\ndata: {oops\n\n" + respDone, false, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var rec sdktest.Recorder
			tr := newTurn(&rec, "m", nil)
			tr.s.Strict = c.strict
			err := c.decode(context.Background(), strings.NewReader(c.body), tr)
			sdktest.CheckStream(t, rec.Events(), err)
			if c.want != nil {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(c.want, rec.Events()); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
				return
			}
			var se *sdk.Error
			if !errors.As(err, &se) || se.Class != sdk.ClassTransient || se.Code != c.wantCode {
				t.Errorf("err = %#v, want a transient error with code %q", err, c.wantCode)
			}
		})
	}
}

func chatDecode(ctx context.Context, r *strings.Reader, t *turn) error {
	return decodeStream(ctx, r, t)
}
func respDecode(ctx context.Context, r *strings.Reader, t *turn) error {
	return decodeResponsesStream(ctx, r, t)
}
