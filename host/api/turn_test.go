package api

import (
	"encoding/json"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

func TestTurnCollects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		events []sdk.Event
		parts  []sdk.Part
		usage  sdk.Usage
		finish sdk.FinishReason
	}{{
		name: "text deltas join; a signature ends a reasoning block; redacted reasoning is its own",
		events: []sdk.Event{think("a"), think("b"), signed("s1"), think("c"), redacted("r"), think("d"),
			text("x"), text("y"), toolCall(7, "id", "f", ` {"k":1} `), text("z"), finish(sdk.FinishToolCalls)},
		parts: []sdk.Part{
			sdk.Reasoning{Text: "ab", Signature: "s1"}, sdk.Reasoning{Text: "c"}, sdk.Reasoning{Redacted: "r"}, sdk.Reasoning{Text: "d"},
			sdk.Text{Text: "xy"}, sdk.ToolCall{ID: "id", Name: "f", Input: json.RawMessage(`{"k":1}`)}, sdk.Text{Text: "z"},
		},
		finish: sdk.FinishToolCalls,
	}, {
		name: "usage: the latest report of each count wins, unreported counts stay nil",
		events: []sdk.Event{
			{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(10), CacheReadTokens: sdk.Tokens(2)}},
			{Type: sdk.EventUsage, Usage: &sdk.Usage{OutputTokens: sdk.Tokens(1)}},
			{Type: sdk.EventUsage, Usage: &sdk.Usage{OutputTokens: sdk.Tokens(7), CacheReadTokens: sdk.Tokens(0)}},
			{Type: sdk.EventUsage},
			finish(""),
		},
		usage:  sdk.Usage{InputTokens: sdk.Tokens(10), OutputTokens: sdk.Tokens(7), CacheReadTokens: sdk.Tokens(0)},
		finish: sdk.FinishStop,
	}, {
		name:   "an event type this version does not know is passed over",
		events: []sdk.Event{{Type: "future_event", Text: "?"}, text("ok"), finish(sdk.FinishLength)},
		parts:  []sdk.Part{sdk.Text{Text: "ok"}},
		finish: sdk.FinishLength,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := turn{keepParts: true, newID: func() string { return "new" }}
			for i, ev := range tt.events {
				if _, err := tr.add(ev); err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
			}
			if diff := cmp.Diff(tt.parts, tr.content()); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.usage, tr.usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if got := tr.finishReason(); got != tt.finish {
				t.Errorf("finish reason %q, want %q", got, tt.finish)
			}
		})
	}
}

func TestTurnNumbersToolCalls(t *testing.T) {
	t.Parallel()
	tr := turn{newID: func() string { return "gen" }}
	events := []sdk.Event{toolCall(0, "a", "f", `{}`), toolCall(0, "b", "f", `{}`), toolCall(5, "", "g", ``)}
	var got []int
	for _, ev := range events {
		out, err := tr.add(ev)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, out.Index)
	}
	if diff := cmp.Diff([]int{0, 1, 2}, got); diff != "" {
		t.Errorf("indices (-want +got):\n%s", diff)
	}
	if events[2].ToolCall.ID != "" || string(events[2].ToolCall.Input) != "" {
		t.Error("add modified the backend's tool call instead of a copy")
	}
}
