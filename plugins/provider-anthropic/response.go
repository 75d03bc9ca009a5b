package main

import (
	"context"
	"encoding/json"
	"io"

	"github.com/axonhq/axon/sdk"
)

// wireContent is a response content block: an element of a message's
// content, or the content_block of a content_block_start event.
type wireContent struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`      // text
	Thinking  string          `json:"thinking"`  // thinking
	Signature string          `json:"signature"` // thinking
	Data      string          `json:"data"`      // redacted_thinking
	ID        string          `json:"id"`        // tool_use
	Name      string          `json:"name"`      // tool_use
	Input     json.RawMessage `json:"input"`     // tool_use
}

// wireMessageBody is a non-streaming response body: a message, or an error
// envelope.
type wireMessageBody struct {
	Type       string         `json:"type"` // message | error
	Model      string         `json:"model"`
	Content    []wireContent  `json:"content"`
	StopReason string         `json:"stop_reason"`
	Usage      *wireUsage     `json:"usage"`
	Error      *wireErrorBody `json:"error"`
}

// decodeMessage turns a non-streaming JSON body into events. Upstreams
// answer with one when they ignore "stream": true.
func decodeMessage(ctx context.Context, body io.Reader, t *turn) error {
	var m wireMessageBody
	if err := json.NewDecoder(body).Decode(&m); err != nil {
		return sdk.DecodeError(ctx, "anthropic", "a Messages API message", err)
	}
	if m.Type == "error" {
		return streamError(m.Error)
	}
	if err := t.start(ctx, m.Model, m.Usage); err != nil {
		return err
	}
	for _, c := range m.Content {
		if err := contentBlock(ctx, t, c); err != nil {
			return err
		}
	}
	t.stop = m.StopReason
	return t.finish(ctx)
}

// contentBlock sends the events of one complete content block. Block types
// this plugin does not know (server tool results, for example) carry nothing
// the canonical stream can hold and are skipped.
func contentBlock(ctx context.Context, t *turn, c wireContent) error {
	switch c.Type {
	case "text":
		return t.s.Text(ctx, c.Text)
	case "thinking":
		if err := t.s.Reasoning(ctx, sdk.Reasoning{Text: c.Thinking}); err != nil {
			return err
		}
		return t.s.Reasoning(ctx, sdk.Reasoning{Signature: c.Signature})
	case "redacted_thinking":
		return t.s.Reasoning(ctx, sdk.Reasoning{Redacted: c.Data})
	case "tool_use":
		return t.toolCall(ctx, t.s.ReserveCall(), c.ID, c.Name, c.Input)
	}
	return nil
}
