package main

import (
	"context"
	"encoding/json"

	"github.com/axonhq/axon/sdk"
)

// turn turns what the upstream said about one assistant reply into sdk
// events and decides how the reply ends. The streaming and non-streaming
// decoders both drive it, so both end a turn by the same rules; the
// sdk.Stream under it keeps the rules every stream follows.
type turn struct {
	s    *sdk.Stream
	stop string // stop_reason as reported
}

func newTurn(out sdk.Sink) *turn { return &turn{s: sdk.NewStream(out, "")} }

// wireUsage is the usage object of message_start, message_delta and a
// non-streaming message. Nil fields were not reported; message_delta
// counts are cumulative, so the latest report of each wins.
type wireUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	// CacheCreation splits the writes by lifetime; its sum stands in for
	// cache_creation_input_tokens when only it is reported.
	CacheCreation *struct {
		Ephemeral5m *int64 `json:"ephemeral_5m_input_tokens"`
		Ephemeral1h *int64 `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
}

// cacheWrites is the tokens written to the cache, nil when not reported.
func (u *wireUsage) cacheWrites() *int64 {
	if u.CacheCreationInputTokens != nil || u.CacheCreation == nil {
		return u.CacheCreationInputTokens
	}
	c := u.CacheCreation
	if c.Ephemeral5m == nil && c.Ephemeral1h == nil {
		return nil
	}
	var n int64
	for _, v := range []*int64{c.Ephemeral5m, c.Ephemeral1h} {
		if v != nil {
			n += *v
		}
	}
	return &n
}

// usage reports u: its counts are disjoint already, as sdk.Usage wants.
func (t *turn) usage(u *wireUsage) {
	if u != nil {
		t.s.Usage(&sdk.Usage{
			InputTokens:      u.InputTokens,
			OutputTokens:     u.OutputTokens,
			CacheReadTokens:  u.CacheReadInputTokens,
			CacheWriteTokens: u.cacheWrites(),
		})
	}
}

func (t *turn) start(ctx context.Context, model string, u *wireUsage) error {
	if t.s.Started() {
		return sdk.Permanentf("anthropic: protocol error: second message_start")
	}
	t.usage(u)
	return t.s.Start(ctx, model)
}

// requireStarted guards content that arrives before message_start.
func (t *turn) requireStarted() error {
	if !t.s.Started() {
		return sdk.Permanentf("anthropic: protocol error: content before message_start")
	}
	return nil
}

// toolCall sends one complete call, numbered by ReserveCall when its block
// started, so the Index of a call is stable however its events interleave.
func (t *turn) toolCall(ctx context.Context, index int, id, name string, input json.RawMessage) error {
	in, err := sdk.ToolInput(input)
	if err != nil {
		return sdk.Permanentf("anthropic: malformed tool input JSON from the model for %q", name)
	}
	return t.s.ToolCallAt(ctx, index, sdk.ToolCall{ID: id, Name: name, Input: in})
}

// finish ends a complete reply. A refusal with nothing said is a content
// filter verdict; any other empty reply fails in Finish.
func (t *turn) finish(ctx context.Context) error {
	if !t.s.HasContent() && t.stop == "refusal" {
		return sdk.Errorf(sdk.ClassContentFilter, "anthropic: the model refused (stop_reason refusal)")
	}
	return t.s.Finish(ctx, t.finishReason())
}

// finishReason maps stop_reason. Reasons this plugin does not know (and a
// missing one) fall back on what the reply contains.
func (t *turn) finishReason() sdk.FinishReason {
	switch t.stop {
	case "end_turn", "stop_sequence", "pause_turn":
		return sdk.FinishStop
	case "max_tokens", "model_context_window_exceeded":
		return sdk.FinishLength
	case "tool_use":
		return sdk.FinishToolCalls
	case "refusal":
		return sdk.FinishContentFilter
	}
	if t.s.ToolCalls() > 0 {
		return sdk.FinishToolCalls
	}
	return sdk.FinishStop
}
