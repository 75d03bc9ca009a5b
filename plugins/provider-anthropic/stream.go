package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sse"
)

// wireEvent is the data of one streaming event. Fields are the union of all
// event types; which are set depends on Type.
type wireEvent struct {
	Type         string         `json:"type"`
	Message      *wireStartMsg  `json:"message"`       // message_start
	Index        int            `json:"index"`         // content_block_*
	ContentBlock *wireContent   `json:"content_block"` // content_block_start
	Delta        wireDelta      `json:"delta"`         // content_block_delta, message_delta
	Usage        *wireUsage     `json:"usage"`         // message_delta
	Error        *wireErrorBody `json:"error"`         // error
}

type wireStartMsg struct {
	Model string     `json:"model"`
	Usage *wireUsage `json:"usage"`
}

// wireDelta is a content_block_delta delta (Type set) or a message_delta
// delta (StopReason set).
type wireDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`         // text_delta
	Thinking    string `json:"thinking"`     // thinking_delta
	Signature   string `json:"signature"`    // signature_delta
	PartialJSON string `json:"partial_json"` // input_json_delta
	StopReason  string `json:"stop_reason"`  // message_delta
}

// openBlock is a content block between its start and stop events.
type openBlock struct {
	typ       string
	call      int // tool_use: the call's Index
	id, name  string
	input     []byte // input_json_delta fragments, in order
	partial   bool   // at least one fragment arrived
	start     json.RawMessage
	signature string // a signature given whole at block start
}

// decodeStream turns a Messages API event stream into events on t. It
// returns when message_stop arrives (the rest of the body is not read), on
// an error event, or when the body ends, which without message_stop is a
// failure: a cut stream must never look like a complete reply. An event
// that is not JSON is skipped and counted (t.s.Skip; an error with
// strict_stream): message_stop is still required.
func decodeStream(ctx context.Context, body io.Reader, t *turn) error {
	events := sse.NewReader(body)
	open := map[int]*openBlock{}
	var ev wireEvent // reused: one allocation per stream, not per event
	for {
		raw, err := events.Next()
		switch {
		case err == io.EOF, err == io.ErrUnexpectedEOF:
			return sdk.ErrCutStream.Newf("anthropic: stream ended before message_stop")
		case err != nil:
			return sdk.ReadError(ctx, "anthropic", err, sse.ErrEventTooLarge)
		}
		if bytes.Equal(raw.Type, []byte("ping")) {
			continue
		}
		ev = wireEvent{}
		if err := json.Unmarshal(raw.Data, &ev); err != nil {
			if bytes.Equal(raw.Type, []byte("error")) {
				return streamError(nil) // an error, even one that is not JSON, is never skipped
			}
			if err := t.s.Skip(errMalformedEvent.Newf("anthropic: malformed stream event")); err != nil {
				return err
			}
			continue
		}
		done, err := applyEvent(ctx, t, open, &ev)
		if err != nil || done {
			return err
		}
	}
}

// applyEvent applies one event. done reports message_stop.
func applyEvent(ctx context.Context, t *turn, open map[int]*openBlock, ev *wireEvent) (done bool, err error) {
	switch ev.Type {
	case "message_start":
		if ev.Message == nil {
			return false, protocolError("message_start without a message")
		}
		return false, t.start(ctx, ev.Message.Model, ev.Message.Usage)
	case "content_block_start":
		if err := t.requireStarted(); err != nil {
			return false, err
		}
		if ev.ContentBlock == nil {
			return false, protocolError("content_block_start without a block")
		}
		if _, dup := open[ev.Index]; dup {
			return false, protocolError("content block index reused")
		}
		c := ev.ContentBlock
		b := &openBlock{typ: c.Type, id: c.ID, name: c.Name, start: c.Input, signature: c.Signature}
		open[ev.Index] = b
		switch c.Type { // a block may start with content of its own
		case "tool_use":
			b.call = t.s.ReserveCall()
			return false, t.s.BeginToolCall(ctx)
		case "text":
			return false, t.s.Text(ctx, c.Text)
		case "thinking":
			return false, t.s.Reasoning(ctx, sdk.Reasoning{Text: c.Thinking})
		case "redacted_thinking":
			return false, t.s.Reasoning(ctx, sdk.Reasoning{Redacted: c.Data})
		}
		return false, nil
	case "content_block_delta":
		b, ok := open[ev.Index]
		if !ok {
			return false, protocolError("delta for a block that is not open")
		}
		return false, applyDelta(ctx, t, b, &ev.Delta)
	case "content_block_stop":
		b, ok := open[ev.Index]
		if !ok {
			return false, protocolError("stop for a block that is not open")
		}
		delete(open, ev.Index)
		return false, closeBlock(ctx, t, b)
	case "message_delta":
		if err := t.requireStarted(); err != nil {
			return false, err
		}
		if ev.Delta.StopReason != "" {
			t.stop = ev.Delta.StopReason
		}
		t.usage(ev.Usage)
		return false, nil
	case "message_stop":
		if err := t.requireStarted(); err != nil {
			return false, err
		}
		if len(open) > 0 {
			return false, protocolError("message_stop with a content block still open")
		}
		return true, t.finish(ctx)
	case "error":
		return false, streamError(ev.Error)
	}
	// ping, and event types added to the API later (its versioning policy
	// allows new ones), carry nothing for the canonical stream.
	return false, nil
}

func applyDelta(ctx context.Context, t *turn, b *openBlock, d *wireDelta) error {
	switch d.Type {
	case "text_delta":
		return t.s.Text(ctx, d.Text)
	case "thinking_delta":
		return t.s.Reasoning(ctx, sdk.Reasoning{Text: d.Thinking})
	case "signature_delta":
		b.signature = "" // superseded by the streamed one
		return t.s.Reasoning(ctx, sdk.Reasoning{Signature: d.Signature})
	case "input_json_delta":
		b.input = append(b.input, d.PartialJSON...)
		b.partial = true
	}
	return nil // citations_delta and later delta types
}

func closeBlock(ctx context.Context, t *turn, b *openBlock) error {
	switch b.typ {
	case "tool_use":
		input := b.start
		if b.partial {
			input = b.input // may be empty: no arguments, sent as {}
		}
		return t.toolCall(ctx, b.call, b.id, b.name, input)
	case "thinking":
		return t.s.Reasoning(ctx, sdk.Reasoning{Signature: b.signature})
	}
	return nil
}

// errMalformedEvent: a stream event that is not JSON, with strict_stream
// on.
var errMalformedEvent = &sdk.Error{Class: sdk.ClassTransient, Code: "malformed_chunk"}

func protocolError(what string) error {
	return sdk.Permanentf("anthropic: protocol error: %s", what)
}
