package main

import (
	"context"
	"errors"
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
	for _, c := range []struct {
		name     string
		body     string
		strict   bool
		wantCode string // "": a complete answer
	}{
		{"skipped, answer complete", hi + bad + more + done, false, ""},
		{"strict fails", hi + bad + more + done, true, "malformed_chunk"},
		{"skipped and no end is cut", hi + bad + more, false, "cut_stream"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var rec sdktest.Recorder
			tr := newTurn(&rec, "gemini-x", "seed")
			tr.s.Strict = c.strict
			err := decodeStream(context.Background(), strings.NewReader(c.body), tr)
			events := rec.Events()
			sdktest.CheckStream(t, events, err)
			if c.wantCode != "" {
				var se *sdk.Error
				if !errors.As(err, &se) || se.Class != sdk.ClassTransient || se.Code != c.wantCode {
					t.Errorf("err = %#v, want a transient error with code %q", err, c.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			for _, ev := range events {
				text.WriteString(ev.Text)
			}
			if got := text.String(); got != "Hi there" {
				t.Errorf("text %q, want %q", got, "Hi there")
			}
			if last := events[len(events)-1]; last.Skipped != 1 {
				t.Errorf("finish %+v, want Skipped 1", last)
			}
		})
	}
}
