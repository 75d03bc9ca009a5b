package sdktest

import (
	"errors"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// Decode runs a provider's stream decoder over body into out, with the
// sdk.Stream's Strict set to strict (the strict_stream attribute).
type Decode func(body string, strict bool, out sdk.Sink) error

// SkipBodies are the two wire bodies CheckSkip needs, in the provider's
// own format: each holds the text "Hi there" around one event that cannot
// be decoded.
type SkipBodies struct {
	Complete string // "Hi", the bad event, " there", the stream's terminal event
	NoEnd    string // the same without the terminal event
}

// CheckSkip asserts the kit's rule for an undecodable stream event: it is
// passed over and counted on the finish (Skipped 1) and the answer is
// whole; with strict_stream the reply fails as a transient malformed_chunk;
// skipped or not, a stream without its end is a transient cut_stream.
func CheckSkip(t *testing.T, decode Decode, b SkipBodies) {
	t.Helper()
	for _, c := range []struct {
		name     string
		body     string
		strict   bool
		wantCode string // "": a complete answer
	}{
		{"skipped, answer complete", b.Complete, false, ""},
		{"strict fails", b.Complete, true, "malformed_chunk"},
		{"skipped and no end is cut", b.NoEnd, false, sdk.ErrCutStream.Code},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rec Recorder
			err := decode(c.body, c.strict, &rec)
			events := rec.Events()
			CheckStream(t, events, err)
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
