package sdktest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

func ptr[T any](v T) *T { return &v }

func TestRenderOutcome(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		events []sdk.Event
		err    error
		want   string
	}{
		"success": {
			events: []sdk.Event{
				{Type: sdk.EventStart, Model: "m"},
				{Type: sdk.EventReasoningDelta, Text: "hm", Signature: "sig"},
				{Type: sdk.EventToolCall, Index: 0, ToolCall: &sdk.ToolCall{ID: "c1", Name: "weather", Input: json.RawMessage(`{"q":1}`)}},
				{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: ptr[int64](3), OutputTokens: ptr[int64](0)}},
				{Type: sdk.EventFinish, Finish: sdk.FinishToolCalls},
			},
			want: `{
  "events": [
    {
      "type": "start",
      "model": "m"
    },
    {
      "type": "reasoning_delta",
      "text": "hm",
      "signature": "sig"
    },
    {
      "type": "tool_call",
      "index": 0,
      "tool_call": {
        "id": "c1",
        "name": "weather",
        "input": {
          "q": 1
        }
      }
    },
    {
      "type": "usage",
      "usage": {
        "input": 3,
        "output": 0
      }
    },
    {
      "type": "finish",
      "finish": "tool_calls"
    }
  ]
}
`,
		},
		"failure": {
			events: []sdk.Event{{Type: sdk.EventStart, Model: "m"}},
			err:    &sdk.Error{Class: sdk.ClassTransient, Code: "overloaded", Status: 529, RetryAfter: 2 * time.Second, Message: "x: overloaded"},
			want: `{
  "events": [
    {
      "type": "start",
      "model": "m"
    }
  ],
  "error": {
    "class": "transient",
    "status": 529,
    "retry_after": "2s",
    "message": "x: overloaded"
  }
}
`,
		},
		"nothing": {want: "{}\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, string(RenderOutcome(t, tc.events, tc.err))); diff != "" {
				t.Errorf("rendered (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRenderOutcomeRefusesUnclassifiedErrors(t *testing.T) {
	t.Parallel()
	errs := failures(t, func(tb testing.TB) { RenderOutcome(tb, nil, errors.New("boom")) })
	if len(errs) != 1 || !strings.Contains(errs[0], "carries no class") {
		t.Errorf("failures %q, want one about the missing class", errs)
	}
}

func TestRecorder(t *testing.T) {
	t.Parallel()
	var r Recorder
	want := []sdk.Event{{Type: sdk.EventStart}, {Type: sdk.EventTextDelta, Text: "a"}}
	for _, ev := range want {
		if err := r.Send(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	got := r.Events()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	got[0].Text = "changed"
	if r.Events()[0].Text != "" {
		t.Error("Events returned the recorder's own slice")
	}
}
