package main

import (
	"context"
	"encoding/json"

	"github.com/axonhq/axon/sdk"
)

// turn turns what the upstream said about one assistant reply into sdk
// events and decides how the reply ends. The streaming and non-streaming
// decoders both drive it, so both end a turn by the same rules.
type turn struct {
	out     sdk.Sink
	started bool
	text    bool // a non-empty text delta was sent
	tools   int  // tool_use blocks seen; the next call's Index
	usage   wireUsage
	stop    string // stop_reason as reported
}

// wireUsage is the usage object of message_start, message_delta and a
// non-streaming message. Nil fields were not reported.
type wireUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
}

// merge takes every field u reports. message_delta counts are cumulative,
// so the latest report wins. Values are copied: u may be reused by its
// decoder.
func (w *wireUsage) merge(u *wireUsage) {
	if u == nil {
		return
	}
	take := func(dst **int64, src *int64) {
		if src != nil {
			*dst = sdk.Tokens(*src)
		}
	}
	take(&w.InputTokens, u.InputTokens)
	take(&w.OutputTokens, u.OutputTokens)
	take(&w.CacheReadInputTokens, u.CacheReadInputTokens)
	take(&w.CacheCreationInputTokens, u.CacheCreationInputTokens)
}

func (t *turn) start(ctx context.Context, model string, u *wireUsage) error {
	if t.started {
		return sdk.Permanentf("anthropic: protocol error: second message_start")
	}
	t.started = true
	t.usage.merge(u)
	return t.out.Send(ctx, sdk.Event{Type: sdk.EventStart, Model: model})
}

// requireStarted guards content that arrives before message_start.
func (t *turn) requireStarted() error {
	if !t.started {
		return sdk.Permanentf("anthropic: protocol error: content before message_start")
	}
	return nil
}

func (t *turn) textDelta(ctx context.Context, s string) error {
	if s == "" {
		return nil
	}
	t.text = true
	return t.out.Send(ctx, sdk.Event{Type: sdk.EventTextDelta, Text: s})
}

func (t *turn) reasoning(ctx context.Context, ev sdk.Event) error {
	if ev.Text == "" && ev.Signature == "" && ev.Redacted == "" {
		return nil
	}
	ev.Type = sdk.EventReasoningDelta
	return t.out.Send(ctx, ev)
}

// claimCall numbers the next tool_use block: 0, 1, 2 in the order the
// blocks start, whatever their content block index, so the Index of a call
// is stable however its events interleave.
func (t *turn) claimCall() int {
	n := t.tools
	t.tools++
	return n
}

// toolCall sends one complete call, numbered by claimCall.
func (t *turn) toolCall(ctx context.Context, index int, id, name string, input json.RawMessage) error {
	in, err := toolInput(input)
	if err != nil {
		return sdk.Permanentf("anthropic: malformed tool input JSON from the model for %q", name)
	}
	return t.out.Send(ctx, sdk.Event{
		Type:     sdk.EventToolCall,
		ToolCall: &sdk.ToolCall{ID: id, Name: name, Input: in},
		Index:    index,
	})
}

// finish ends a complete reply: usage when any was reported, then exactly
// one finish event. A reply with neither text nor a tool call is a failure.
func (t *turn) finish(ctx context.Context) error {
	if !t.text && t.tools == 0 {
		if t.stop == "refusal" {
			return sdk.Errorf(sdk.ClassContentFilter, "anthropic: the model refused (stop_reason refusal)")
		}
		return sdk.Permanentf("provider returned no text")
	}
	if u := t.usage.canonical(); u != nil {
		if err := t.out.Send(ctx, sdk.Event{Type: sdk.EventUsage, Usage: u}); err != nil {
			return err
		}
	}
	return t.out.Send(ctx, sdk.Event{Type: sdk.EventFinish, Finish: t.finishReason()})
}

func (w wireUsage) canonical() *sdk.Usage {
	if w.InputTokens == nil && w.OutputTokens == nil && w.CacheReadInputTokens == nil && w.CacheCreationInputTokens == nil {
		return nil
	}
	return &sdk.Usage{
		InputTokens:      w.InputTokens,
		OutputTokens:     w.OutputTokens,
		CacheReadTokens:  w.CacheReadInputTokens,
		CacheWriteTokens: w.CacheCreationInputTokens,
	}
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
	if t.tools > 0 {
		return sdk.FinishToolCalls
	}
	return sdk.FinishStop
}
