package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"

	"github.com/axonhq/axon/sdk"
)

// turn turns what the upstream said about one assistant reply into sdk
// events and decides how the reply ends. The streaming and non-streaming
// decoders both drive it, so both end a turn by the same rules.
type turn struct {
	out     sdk.Sink
	started bool
	text    bool   // a non-empty text delta was sent
	calls   int    // tool calls sent; the next call's Index
	stop    string // done_reason as reported
	input   *int64 // prompt_eval_count; nil when not reported
	output  *int64 // eval_count; nil when not reported
}

// start sends EventStart once, with the model of the first line.
func (t *turn) start(ctx context.Context, model string) error {
	if t.started {
		return nil
	}
	t.started = true
	return t.out.Send(ctx, sdk.Event{Type: sdk.EventStart, Model: model})
}

func (t *turn) textDelta(ctx context.Context, s string) error {
	if s == "" {
		return nil
	}
	t.text = true
	return t.out.Send(ctx, sdk.Event{Type: sdk.EventTextDelta, Text: s})
}

func (t *turn) reasoning(ctx context.Context, s string) error {
	if s == "" {
		return nil
	}
	return t.out.Send(ctx, sdk.Event{Type: sdk.EventReasoningDelta, Text: s})
}

// toolCall sends one call. Ollama sends each call complete, on one line;
// Index numbers calls 0, 1, 2 in the order they arrive. createdAt is the
// created_at of the line that carried the call, for its id.
func (t *turn) toolCall(ctx context.Context, createdAt string, c wireToolCall) error {
	name := c.Function.Name
	if name == "" {
		return sdk.Permanentf("ollama: tool call without a name from the model")
	}
	args, err := callArguments(c.Function.Arguments)
	if err != nil {
		return sdk.Permanentf("ollama: malformed tool arguments from the model for %q", name)
	}
	index := t.calls
	t.calls++
	id := c.ID
	if id == "" {
		id = callID(createdAt, index, name, args)
	}
	return t.out.Send(ctx, sdk.Event{
		Type:     sdk.EventToolCall,
		ToolCall: &sdk.ToolCall{ID: id, Name: name, Input: args},
		Index:    index,
	})
}

// callArguments normalises a call's arguments to a compact JSON object.
// Ollama sends an object; a JSON string holding one (the OpenAI habit of
// some model templates) is unwrapped; absent or null is {}.
func callArguments(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return json.RawMessage("{}"), nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		raw = bytes.TrimSpace([]byte(s))
		if len(raw) == 0 {
			return json.RawMessage("{}"), nil
		}
	}
	return toolArguments(raw)
}

// callID names a call that came without an id (Ollama before tool call
// ids). The id is a function of the call and the time the server stamped
// on its line, so a replay yields the same id and two turns of one
// conversation (different times) do not collide, which a front door or a
// fallback provider (Anthropic refuses duplicate tool_use ids) would trip
// over.
func callID(createdAt string, index int, name string, args []byte) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00", createdAt, index, name)
	h.Write(args)
	return fmt.Sprintf("call_%016x", h.Sum64())
}

// finish ends a complete reply: usage when any count was reported, then
// exactly one finish event. A reply with neither text nor a tool call is a
// failure.
func (t *turn) finish(ctx context.Context) error {
	if !t.text && t.calls == 0 {
		return sdk.Permanentf("provider returned no text")
	}
	if t.input != nil || t.output != nil {
		u := &sdk.Usage{InputTokens: t.input, OutputTokens: t.output}
		if err := t.out.Send(ctx, sdk.Event{Type: sdk.EventUsage, Usage: u}); err != nil {
			return err
		}
	}
	return t.out.Send(ctx, sdk.Event{Type: sdk.EventFinish, Finish: t.finishReason()})
}

// finishReason maps done_reason. Ollama reports stop when a turn ends in
// tool calls; reasons this plugin does not know (and a missing one, from
// servers before done_reason) fall back on what the reply contains.
func (t *turn) finishReason() sdk.FinishReason {
	if t.stop == "length" {
		return sdk.FinishLength
	}
	if t.calls > 0 {
		return sdk.FinishToolCalls
	}
	return sdk.FinishStop
}
