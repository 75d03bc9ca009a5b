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
// events. The streaming and non-streaming decoders both drive it, so both
// end a turn by the same rules; the sdk.Stream under it keeps the rules
// every stream follows (start once, dense call indices, no empty reply,
// one finish).
type turn struct {
	s *sdk.Stream
}

func newTurn(out sdk.Sink) *turn { return &turn{s: sdk.NewStream(out, "")} }

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
	index := t.s.ReserveCall()
	id := c.ID
	if id == "" {
		id = callID(createdAt, index, name, args)
	}
	return t.s.ToolCallAt(ctx, index, sdk.ToolCall{ID: id, Name: name, Input: args})
}

// callArguments normalises a call's arguments to a compact JSON object.
// Ollama sends an object; a JSON string holding one (the OpenAI habit of
// some model templates) is unwrapped; absent or null is {}.
func callArguments(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		raw = json.RawMessage(s)
	}
	return sdk.ToolInput(raw)
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

// finishReason maps done_reason. Ollama reports stop when a turn ends in
// tool calls; reasons this plugin does not know (and a missing one, from
// servers before done_reason) fall back on what the reply contains.
func finishReason(doneReason string, calls bool) sdk.FinishReason {
	switch {
	case doneReason == "length":
		return sdk.FinishLength
	case calls:
		return sdk.FinishToolCalls
	}
	return sdk.FinishStop
}
