package pluginrpc

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/axonhq/axon/sdk/spec"
)

var equateEmpty = cmpopts.EquateEmpty()

func temp(f float64) *float64 { return &f }

func TestRequestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		req  *spec.Request
	}{
		{"minimal", &spec.Request{Messages: []spec.Message{{Role: spec.RoleUser, Parts: []spec.Part{spec.Text{Text: "hi"}}}}}},
		{"every part and option", &spec.Request{
			Model: "m", System: "be brief", MaxTokens: 512, Temperature: temp(0), StopSequences: []string{"END"},
			ToolChoice: spec.ToolChoice{Mode: spec.ToolChoiceTool, Name: "clock"},
			Tools:      []spec.ToolSpec{{Name: "clock", Description: "time", InputSchema: json.RawMessage(`{"type":"object"}`), SideEffect: spec.SideEffectNone}},
			Options:    map[string]json.RawMessage{"thinking_budget": json.RawMessage(`1024`)},
			Messages: []spec.Message{
				{Role: spec.RoleUser, Parts: []spec.Part{spec.Text{Text: "look"}, spec.Image{MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}, spec.Image{URL: "https://x/y.jpg"}}},
				{Role: spec.RoleAssistant, Parts: []spec.Part{
					spec.Reasoning{Text: "hmm", Signature: "sig==", Origin: "glm"}, spec.Reasoning{Redacted: "opaque"},
					spec.ToolCall{ID: "c1", Name: "clock", Input: json.RawMessage(`{"zone":"UTC"}`)},
				}},
				{Role: spec.RoleTool, Parts: []spec.Part{spec.ToolResult{CallID: "c1", Name: "clock", IsError: true, Content: []spec.Part{spec.Text{Text: "no"}}}}},
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
	for _, ev := range []spec.Event{
		{Type: spec.EventStart, Model: "claude-x"},
		{Type: spec.EventTextDelta, Text: "hé"},
		{Type: spec.EventReasoningDelta, Text: "think", Signature: "s", Redacted: "r"},
		{Type: spec.EventToolCall, Index: 1, ToolCall: &spec.ToolCall{ID: "t", Name: "n", Input: json.RawMessage(`{}`)}},
		{Type: spec.EventUsage, Usage: &spec.Usage{InputTokens: spec.Tokens(0), OutputTokens: spec.Tokens(7)}},
		{Type: spec.EventUsage, Usage: &spec.Usage{CacheReadTokens: spec.Tokens(3), CacheWriteTokens: spec.Tokens(4)}},
		{Type: spec.EventFinish, Finish: spec.FinishToolCalls},
	} {
		got := eventFromProto(eventToProto(ev))
		if diff := cmp.Diff(ev, got, equateEmpty); diff != "" {
			t.Errorf("%s (-want +got):\n%s", ev.Type, diff)
		}
	}
	// Absent is not zero: an unreported count stays nil across the wire.
	u := eventFromProto(eventToProto(spec.Event{Type: spec.EventUsage, Usage: &spec.Usage{OutputTokens: spec.Tokens(1)}})).Usage
	if u.InputTokens != nil || u.CacheReadTokens != nil {
		t.Errorf("unreported counts arrived as %v / %v", u.InputTokens, u.CacheReadTokens)
	}
}

func TestInfoFrameCapsRoundTrip(t *testing.T) {
	t.Parallel()
	info := spec.Info{Name: "x", Kind: spec.KindProvider, Version: "1", APIVersions: []string{"v1"},
		Auth: spec.Auth{Scheme: spec.AuthHeader, Name: "x-api-key"},
		Config: spec.Schema{Attributes: []spec.Attribute{{Name: "model", Type: "string", Required: true, Description: "d"},
			{Name: "n", Type: "number", Default: json.RawMessage(`3`)}}}}
	if diff := cmp.Diff(info, infoFromProto(infoToProto(info)), equateEmpty); diff != "" {
		t.Errorf("info (-want +got):\n%s", diff)
	}
	f := spec.Frame{Expression: spec.ExprDegraded, Text: "can't think", Status: map[string]string{"chain": "default"}}
	if diff := cmp.Diff(f, frameFromProto(frameToProto(f))); diff != "" {
		t.Errorf("frame (-want +got):\n%s", diff)
	}
	c := spec.DisplayCaps{Width: 250, Height: 122, Mono: true, MinIntervalMS: 2000}
	if got := capsFromProto(capsToProto(c)); got != c {
		t.Errorf("caps %+v", got)
	}
}
