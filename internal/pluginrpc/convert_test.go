package pluginrpc

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/axonhq/axon/sdk"
)

var equateEmpty = cmpopts.EquateEmpty()

func temp(f float64) *float64 { return &f }

func TestRequestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		req  *sdk.Request
	}{
		{"minimal", &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "hi"}}}}}},
		{"every part and option", &sdk.Request{
			Model: "m", System: []sdk.Text{{Text: "be brief", Cache: sdk.Cache1h}, {Text: "and kind"}}, MaxTokens: 512, Temperature: temp(0), StopSequences: []string{"END"},
			ToolChoice: sdk.ToolChoice{Mode: sdk.ToolChoiceTool, Name: "clock", Sequential: true},
			Tools:      []sdk.ToolSpec{{Name: "clock", Description: "time", InputSchema: json.RawMessage(`{"type":"object"}`), SideEffect: sdk.SideEffectNone, Cache: sdk.CacheDefault}},
			Output:     &sdk.Output{Kind: sdk.OutputJSONSchema, Name: "answer", Schema: json.RawMessage(`{"type":"object"}`), Strict: true},
			Options:    map[string]json.RawMessage{"thinking_budget": json.RawMessage(`1024`)},
			Messages: []sdk.Message{
				{Role: sdk.RoleUser, Parts: []sdk.Part{
					sdk.Text{Text: "look", Cache: sdk.Cache5m}, sdk.Image{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}, Cache: sdk.Cache5m}, sdk.Image{URL: "https://x/y.jpg"},
					sdk.Document{MediaType: "application/pdf", Data: []byte("%PDF"), Title: "t", Context: "c", Cache: sdk.CacheDefault}, sdk.Document{URL: "https://x/a.pdf"},
				}},
				{Role: sdk.RoleAssistant, Parts: []sdk.Part{
					sdk.Reasoning{Text: "hmm", Signature: "sig==", Origin: "glm"}, sdk.Reasoning{Redacted: "opaque"},
					sdk.ToolCall{ID: "c1", Name: "clock", Input: json.RawMessage(`{"zone":"UTC"}`), Cache: sdk.Cache5m},
				}},
				{Role: sdk.RoleTool, Parts: []sdk.Part{sdk.ToolResult{CallID: "c1", Name: "clock", IsError: true, Content: []sdk.Part{sdk.Text{Text: "no"}}, Cache: sdk.Cache1h}}},
			},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := requestFromProto(requestToProto(c.req))
			if diff := cmp.Diff(c.req, got, equateEmpty); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEventRoundTrip(t *testing.T) {
	t.Parallel()
	for _, ev := range []sdk.Event{
		{Type: sdk.EventStart, Model: "claude-x"},
		{Type: sdk.EventTextDelta, Text: "hé"},
		{Type: sdk.EventReasoningDelta, Text: "think", Signature: "s", Redacted: "r"},
		{Type: sdk.EventToolCall, Index: 1, ToolCall: &sdk.ToolCall{ID: "t", Name: "n", Input: json.RawMessage(`{}`)}},
		{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(0), OutputTokens: sdk.Tokens(7)}},
		{Type: sdk.EventUsage, Usage: &sdk.Usage{CacheReadTokens: sdk.Tokens(3), CacheWriteTokens: sdk.Tokens(4), ReasoningTokens: sdk.Tokens(5)}},
		{Type: sdk.EventFinish, Finish: sdk.FinishToolCalls},
		{Type: sdk.EventFinish, Finish: sdk.FinishStop, Skipped: 2},
	} {
		got := eventFromProto(eventToProto(ev))
		if diff := cmp.Diff(ev, got, equateEmpty); diff != "" {
			t.Errorf("%s (-want +got):\n%s", ev.Type, diff)
		}
	}
	// Absent is not zero: an unreported count stays nil across the wire.
	u := eventFromProto(eventToProto(sdk.Event{Type: sdk.EventUsage, Usage: &sdk.Usage{OutputTokens: sdk.Tokens(1)}})).Usage
	if u.InputTokens != nil || u.CacheReadTokens != nil {
		t.Errorf("unreported counts arrived as %v / %v", u.InputTokens, u.CacheReadTokens)
	}
}

func TestInfoFrameCapsRoundTrip(t *testing.T) {
	t.Parallel()
	info := sdk.Info{Name: "x", Kind: sdk.KindProvider, Version: "1", APIVersions: []string{"v1"},
		Auth: sdk.Auth{Scheme: sdk.AuthHeader, Name: "x-api-key"}, Prefill: true, Output: true, InlineMedia: true, Lacks: []string{sdk.LackCacheBreakpoints},
		Config: sdk.Schema{Attributes: []sdk.Attribute{{Name: "model", Type: "string", Required: true, Description: "d"},
			{Name: "n", Type: "number", Default: json.RawMessage(`3`)}}}}
	if diff := cmp.Diff(info, infoFromProto(infoToProto(info)), equateEmpty); diff != "" {
		t.Errorf("info (-want +got):\n%s", diff)
	}
	// Options: a list, an empty list (renders none) and none (does not
	// say) stay apart.
	for _, opts := range [][]string{{"top_p", "seed"}, {}, nil} {
		got := infoFromProto(infoToProto(sdk.Info{Options: opts})).Options
		if !slices.Equal(got, opts) || (got == nil) != (opts == nil) {
			t.Errorf("options %#v arrived as %#v", opts, got)
		}
	}
	f := sdk.Frame{Expression: sdk.ExprDegraded, Text: "can't think", Status: map[string]string{"chain": "default"}}
	if diff := cmp.Diff(f, frameFromProto(frameToProto(f))); diff != "" {
		t.Errorf("frame (-want +got):\n%s", diff)
	}
	c := sdk.DisplayCaps{Width: 250, Height: 122, Mono: true, MinIntervalMS: 2000}
	if got := capsFromProto(capsToProto(c)); got != c {
		t.Errorf("caps %+v", got)
	}
}
