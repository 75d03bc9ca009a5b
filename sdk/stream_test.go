package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

func call(id string) sdk.ToolCall {
	return sdk.ToolCall{ID: id, Name: "weather", Input: json.RawMessage(`{}`)}
}

// TestStream drives a Stream the ways decoders do and checks the events a
// sink sees, and that they keep the rules the host and sdktest check.
func TestStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		drive func(*sdk.Stream) error
		want  []sdk.Event
	}{
		{"content starts the stream with the requested model", func(s *sdk.Stream) error {
			if err := s.Text(ctx, "Hi"); err != nil {
				return err
			}
			if err := s.Start(ctx, "later"); err != nil { // too late: ignored
				return err
			}
			return s.Finish(ctx, sdk.FinishStop)
		}, []sdk.Event{
			{Type: sdk.EventStart, Model: "requested"},
			{Type: sdk.EventTextDelta, Text: "Hi"},
			{Type: sdk.EventFinish, Finish: sdk.FinishStop},
		}},
		{"the first Start names the model; empty deltas are dropped", func(s *sdk.Stream) error {
			for _, err := range []error{
				s.Start(ctx, "served"),
				s.Start(ctx, "again"),
				s.Text(ctx, ""),
				s.Reasoning(ctx, sdk.Reasoning{}),
				s.Reasoning(ctx, sdk.Reasoning{Text: "hm", Origin: "host's"}),
				s.Reasoning(ctx, sdk.Reasoning{Signature: "sig"}),
				s.Text(ctx, "Hello"),
			} {
				if err != nil {
					return err
				}
			}
			return s.Finish(ctx, sdk.FinishLength)
		}, []sdk.Event{
			{Type: sdk.EventStart, Model: "served"},
			{Type: sdk.EventReasoningDelta, Text: "hm"},
			{Type: sdk.EventReasoningDelta, Signature: "sig"},
			{Type: sdk.EventTextDelta, Text: "Hello"},
			{Type: sdk.EventFinish, Finish: sdk.FinishLength},
		}},
		{"calls keep the order they were reserved in", func(s *sdk.Stream) error {
			first, second := s.ReserveCall(), s.ReserveCall()
			if err := s.ToolCallAt(ctx, second, call("b")); err != nil {
				return err
			}
			if err := s.ToolCallAt(ctx, first, call("a")); err != nil {
				return err
			}
			if err := s.ToolCall(ctx, call("c")); err != nil {
				return err
			}
			return s.Finish(ctx, sdk.FinishToolCalls)
		}, []sdk.Event{
			{Type: sdk.EventStart, Model: "requested"},
			{Type: sdk.EventToolCall, ToolCall: &sdk.ToolCall{ID: "b", Name: "weather", Input: json.RawMessage(`{}`)}, Index: 1},
			{Type: sdk.EventToolCall, ToolCall: &sdk.ToolCall{ID: "a", Name: "weather", Input: json.RawMessage(`{}`)}, Index: 0},
			{Type: sdk.EventToolCall, ToolCall: &sdk.ToolCall{ID: "c", Name: "weather", Input: json.RawMessage(`{}`)}, Index: 2},
			{Type: sdk.EventFinish, Finish: sdk.FinishToolCalls},
		}},
		{"usage reports merge; the latest of each field wins", func(s *sdk.Stream) error {
			s.Usage(&sdk.Usage{InputTokens: sdk.Tokens(9), OutputTokens: sdk.Tokens(1)})
			s.Usage(nil)
			s.Usage(&sdk.Usage{OutputTokens: sdk.Tokens(3), CacheReadTokens: sdk.Tokens(2)})
			if err := s.Text(ctx, "Hi"); err != nil {
				return err
			}
			return s.Finish(ctx, sdk.FinishStop)
		}, []sdk.Event{
			{Type: sdk.EventStart, Model: "requested"},
			{Type: sdk.EventTextDelta, Text: "Hi"},
			{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(9), OutputTokens: sdk.Tokens(3), CacheReadTokens: sdk.Tokens(2)}},
			{Type: sdk.EventFinish, Finish: sdk.FinishStop},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var rec sdktest.Recorder
			err := c.drive(sdk.NewStream(&rec, "requested"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, rec.Events()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			sdktest.CheckStream(t, rec.Events(), err)
		})
	}
}

// TestStreamFailures: what the Stream refuses, and what it has sent by then.
func TestStreamFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		drive func(*sdk.Stream) error
		is    error // nil: any permanent error
		sent  []sdk.EventType
	}{
		{"no content is no text", func(s *sdk.Stream) error {
			s.Usage(&sdk.Usage{OutputTokens: sdk.Tokens(1)})
			if err := s.Start(ctx, ""); err != nil {
				return err
			}
			return s.Finish(ctx, sdk.FinishStop)
		}, sdk.ErrNoText, []sdk.EventType{sdk.EventStart}},
		{"reasoning alone is no text", func(s *sdk.Stream) error {
			if err := s.Reasoning(ctx, sdk.Reasoning{Text: "hm"}); err != nil {
				return err
			}
			return s.Finish(ctx, sdk.FinishStop)
		}, sdk.ErrNoText, []sdk.EventType{sdk.EventStart, sdk.EventReasoningDelta}},
		{"a reserved call never sent", func(s *sdk.Stream) error {
			s.ReserveCall()
			return s.Finish(ctx, sdk.FinishToolCalls)
		}, nil, nil},
		{"a call sent twice", func(s *sdk.Stream) error {
			i := s.ReserveCall()
			if err := s.ToolCallAt(ctx, i, call("a")); err != nil {
				return err
			}
			return s.ToolCallAt(ctx, i, call("a"))
		}, nil, []sdk.EventType{sdk.EventStart, sdk.EventToolCall}},
		{"an index never reserved", func(s *sdk.Stream) error {
			return s.ToolCallAt(ctx, 0, call("a"))
		}, nil, nil},
		{"content after the finish", func(s *sdk.Stream) error {
			if err := s.Text(ctx, "Hi"); err != nil {
				return err
			}
			if err := s.Finish(ctx, sdk.FinishStop); err != nil {
				return err
			}
			return s.Text(ctx, "more")
		}, nil, []sdk.EventType{sdk.EventStart, sdk.EventTextDelta, sdk.EventFinish}},
		{"a second finish", func(s *sdk.Stream) error {
			if err := s.Text(ctx, "Hi"); err != nil {
				return err
			}
			if err := s.Finish(ctx, sdk.FinishStop); err != nil {
				return err
			}
			return s.Finish(ctx, sdk.FinishStop)
		}, nil, []sdk.EventType{sdk.EventStart, sdk.EventTextDelta, sdk.EventFinish}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var rec sdktest.Recorder
			err := c.drive(sdk.NewStream(&rec, "m"))
			if sdk.ClassOf(err) != sdk.ClassPermanent || c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v, want a permanent error (%v)", err, c.is)
			}
			var sent []sdk.EventType
			for _, ev := range rec.Events() {
				sent = append(sent, ev.Type)
			}
			if diff := cmp.Diff(c.sent, sent); diff != "" {
				t.Errorf("events sent (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStreamNoText: the empty-reply error is the one every provider
// returns: permanent, code no_text, the same message.
func TestStreamNoText(t *testing.T) {
	t.Parallel()
	err := sdk.NewStream(&sdktest.Recorder{}, "m").Finish(context.Background(), sdk.FinishStop)
	want := &sdk.Error{Class: sdk.ClassPermanent, Code: "no_text", Message: "provider returned no text"}
	if diff := cmp.Diff(want, err); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestStreamFail: a failed reply still reports the tokens it cost, with
// no start of its own.
func TestStreamFail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cause := sdk.Transientf("cut")

	var rec sdktest.Recorder
	s := sdk.NewStream(&rec, "m")
	s.Usage(&sdk.Usage{InputTokens: sdk.Tokens(5)})
	if err := s.Fail(ctx, cause); err != cause {
		t.Errorf("Fail returned %v, want its cause", err)
	}
	want := []sdk.Event{{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(5)}}}
	if diff := cmp.Diff(want, rec.Events()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	var none sdktest.Recorder
	if err := sdk.NewStream(&none, "m").Fail(ctx, cause); err != cause || len(none.Events()) != 0 {
		t.Errorf("without usage: %v and events %v, want the cause and none", err, none.Events())
	}
}

// TestStreamSinkError: a sink's refusal comes back as it is, and a start
// it refused is not taken as sent.
func TestStreamSinkError(t *testing.T) {
	t.Parallel()
	refused := errors.New("client went away")
	s := sdk.NewStream(sdk.SinkFunc(func(context.Context, sdk.Event) error { return refused }), "m")
	if err := s.Text(context.Background(), "Hi"); err != refused {
		t.Errorf("error %v, want the sink's", err)
	}
	if s.Started() || s.HasContent() {
		t.Errorf("started %t, content %t after a refused start, want neither", s.Started(), s.HasContent())
	}
}

// TestStreamSkip: an undecodable event is passed over and counted on the
// finish, unless the stream is strict, when Skip hands back the failure.
func TestStreamSkip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bad := &sdk.Error{Class: sdk.ClassTransient, Code: "malformed_chunk", Message: "acme: malformed stream chunk"}
	for _, c := range []struct {
		name    string
		strict  bool
		want    []sdk.Event
		wantErr error
	}{
		{"lenient: skipped and counted", false, []sdk.Event{
			{Type: sdk.EventStart, Model: "requested"},
			{Type: sdk.EventTextDelta, Text: "Hi"},
			{Type: sdk.EventTextDelta, Text: " there"},
			{Type: sdk.EventFinish, Finish: sdk.FinishStop, Skipped: 2},
		}, nil},
		{"strict: the first one fails the reply", true, []sdk.Event{
			{Type: sdk.EventStart, Model: "requested"},
			{Type: sdk.EventTextDelta, Text: "Hi"},
		}, bad},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var rec sdktest.Recorder
			s := sdk.NewStream(&rec, "requested")
			s.Strict = c.strict
			err := func() error {
				if err := s.Text(ctx, "Hi"); err != nil {
					return err
				}
				for range 2 {
					if err := s.Skip(bad); err != nil {
						return s.Fail(ctx, err)
					}
				}
				if err := s.Text(ctx, " there"); err != nil {
					return err
				}
				return s.Finish(ctx, sdk.FinishStop)
			}()
			if !errors.Is(err, c.wantErr) || (err == nil) != (c.wantErr == nil) {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			if diff := cmp.Diff(c.want, rec.Events()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if !c.strict && s.Skipped() != 2 {
				t.Errorf("Skipped() = %d, want 2", s.Skipped())
			}
		})
	}
}
