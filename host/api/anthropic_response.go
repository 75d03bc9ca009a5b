package api

import (
	"encoding/json"
	"strconv"

	"github.com/axonhq/axon/sdk"
)

type anthropicOutMessage struct {
	ID           string         `json:"id"`
	Type         string         `json:"type"`
	Role         string         `json:"role"`
	Model        string         `json:"model"`
	Content      []any          `json:"content"`
	StopReason   *string        `json:"stop_reason"`
	StopSequence *string        `json:"stop_sequence"` // always null: the canonical finish does not say which
	Usage        anthropicUsage `json:"usage"`
}

// anthropicUsage: the format requires input_tokens and output_tokens, so
// they are 0 when the provider did not report them; the cache counts are
// left out unless reported.
type anthropicUsage struct {
	InputTokens              int64  `json:"input_tokens"`
	OutputTokens             int64  `json:"output_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens,omitempty"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens,omitempty"`
}

func anthropicUsageOf(t *turn) anthropicUsage {
	u := t.usage
	return anthropicUsage{
		InputTokens:              deref(u.InputTokens),
		OutputTokens:             deref(u.OutputTokens),
		CacheCreationInputTokens: u.CacheWriteTokens,
		CacheReadInputTokens:     u.CacheReadTokens,
	}
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// Content blocks of a whole message, one type per block type.
type (
	anthropicText struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	anthropicThinking struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
	}
	anthropicRedacted struct {
		Type string `json:"type"`
		Data string `json:"data"`
	}
	anthropicToolUse struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
)

// anthropicStop names a finish reason in Anthropic's words.
func anthropicStop(t *turn) string {
	switch t.finishReason() {
	case sdk.FinishLength:
		return "max_tokens"
	case sdk.FinishToolCalls:
		return "tool_use"
	case sdk.FinishContentFilter:
		return "refusal"
	}
	return "end_turn"
}

// whole renders a message object.
func (anthropicDialect) whole(m meta, t *turn) ([]byte, error) {
	parts := t.content()
	content := make([]any, 0, len(parts))
	for _, p := range parts {
		switch p := p.(type) {
		case sdk.Text:
			content = append(content, anthropicText{"text", p.Text})
		case sdk.Reasoning:
			if p.Redacted != "" {
				content = append(content, anthropicRedacted{"redacted_thinking", p.Redacted})
			} else {
				content = append(content, anthropicThinking{"thinking", p.Text, p.Signature})
			}
		case sdk.ToolCall:
			content = append(content, anthropicToolUse{"tool_use", p.ID, p.Name, p.Input})
		}
	}
	stop := anthropicStop(t)
	return json.Marshal(anthropicOutMessage{
		ID: m.id, Type: "message", Role: "assistant", Model: m.model,
		Content: content, StopReason: &stop, Usage: anthropicUsageOf(t),
	})
}

// block is the kind of content block a stream has open.
type block int

const (
	blockNone block = iota
	blockText
	blockThinking
	blockWhole // tool_use or redacted_thinking: started, filled and stopped at once
)

// anthropicStream writes the Messages event sequence: message_start, then
// per block content_block_start, deltas and content_block_stop with
// consecutive indices, then message_delta and message_stop.
type anthropicStream struct {
	m     meta
	cur   block // the open block
	index int   // of the open block, or of the next one when none is open
}

var _ streamEncoder = (*anthropicStream)(nil)

func (anthropicDialect) stream(m meta, _ *call) streamEncoder { return &anthropicStream{m: m} }

// frame appends one SSE event whose data is fixed JSON.
func frame(b []byte, event, data string) []byte {
	b = append(b, "event: "...)
	b = append(b, event...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// open sends message_start. Its usage holds the input counts reported so
// far, and only those: an input count not reported yet is left out, never
// sent as 0 (a provider that reports it only at the end has it in
// message_delta); output_tokens is 0, as Anthropic's own start event has
// it, since no output exists yet.
func (s *anthropicStream) open(b []byte, t *turn) []byte {
	type startUsage struct {
		InputTokens              *int64 `json:"input_tokens,omitempty"`
		OutputTokens             int64  `json:"output_tokens"`
		CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens,omitempty"`
		CacheReadInputTokens     *int64 `json:"cache_read_input_tokens,omitempty"`
	}
	type startMessage struct {
		anthropicOutMessage
		Usage startUsage `json:"usage"`
	}
	start := struct {
		Type    string       `json:"type"`
		Message startMessage `json:"message"`
	}{"message_start", startMessage{
		anthropicOutMessage: anthropicOutMessage{ID: s.m.id, Type: "message", Role: "assistant", Model: s.m.model, Content: []any{}},
		Usage:               startUsage{InputTokens: t.usage.InputTokens, CacheCreationInputTokens: t.usage.CacheWriteTokens, CacheReadInputTokens: t.usage.CacheReadTokens},
	}}
	return frame(b, "message_start", string(mustJSON(start)))
}

func (s *anthropicStream) event(b []byte, _ *turn, ev sdk.Event) []byte {
	switch ev.Type {
	case sdk.EventTextDelta:
		if ev.Text == "" {
			return b
		}
		b = s.ensure(b, blockText)
		b = s.deltaHead(b)
		b = append(b, `{"type":"text_delta","text":`...)
		b = appendJSONString(b, ev.Text)
		return append(b, "}}\n\n"...)
	case sdk.EventReasoningDelta:
		return s.reasoning(b, ev)
	case sdk.EventToolCall:
		b = s.close(b)
		b = append(b, "event: content_block_start\ndata: "...)
		b = append(b, `{"type":"content_block_start","index":`...)
		b = strconv.AppendInt(b, int64(s.index), 10)
		b = append(b, `,"content_block":{"type":"tool_use","id":`...)
		b = appendJSONString(b, ev.ToolCall.ID)
		b = append(b, `,"name":`...)
		b = appendJSONString(b, ev.ToolCall.Name)
		b = append(b, `,"input":{}}}`+"\n\n"...)
		b = s.deltaHead(b)
		b = append(b, `{"type":"input_json_delta","partial_json":`...)
		b = appendJSONString(b, string(ev.ToolCall.Input))
		b = append(b, "}}\n\n"...)
		s.cur = blockWhole
		return s.close(b)
	}
	return b
}

// reasoning follows the event contract: text extends the open thinking
// block, a signature ends it, redacted data is a block of its own.
func (s *anthropicStream) reasoning(b []byte, ev sdk.Event) []byte {
	if ev.Redacted != "" {
		b = s.close(b)
		b = append(b, "event: content_block_start\ndata: "...)
		b = append(b, `{"type":"content_block_start","index":`...)
		b = strconv.AppendInt(b, int64(s.index), 10)
		b = append(b, `,"content_block":{"type":"redacted_thinking","data":`...)
		b = appendJSONString(b, ev.Redacted)
		b = append(b, "}}\n\n"...)
		s.cur = blockWhole
		b = s.close(b)
	}
	if ev.Text == "" && ev.Signature == "" {
		return b
	}
	b = s.ensure(b, blockThinking)
	if ev.Text != "" {
		b = s.deltaHead(b)
		b = append(b, `{"type":"thinking_delta","thinking":`...)
		b = appendJSONString(b, ev.Text)
		b = append(b, "}}\n\n"...)
	}
	if ev.Signature != "" {
		b = s.deltaHead(b)
		b = append(b, `{"type":"signature_delta","signature":`...)
		b = appendJSONString(b, ev.Signature)
		b = append(b, "}}\n\n"...)
		b = s.close(b)
	}
	return b
}

// ensure opens a block of kind k unless one is open already.
func (s *anthropicStream) ensure(b []byte, k block) []byte {
	if s.cur == k {
		return b
	}
	b = s.close(b)
	b = append(b, "event: content_block_start\ndata: "...)
	b = append(b, `{"type":"content_block_start","index":`...)
	b = strconv.AppendInt(b, int64(s.index), 10)
	if k == blockText {
		b = append(b, `,"content_block":{"type":"text","text":""}}`+"\n\n"...)
	} else {
		b = append(b, `,"content_block":{"type":"thinking","thinking":"","signature":""}}`+"\n\n"...)
	}
	s.cur = k
	return b
}

// close ends the open block, if any.
func (s *anthropicStream) close(b []byte) []byte {
	if s.cur == blockNone {
		return b
	}
	b = append(b, "event: content_block_stop\ndata: "...)
	b = append(b, `{"type":"content_block_stop","index":`...)
	b = strconv.AppendInt(b, int64(s.index), 10)
	b = append(b, "}\n\n"...)
	s.cur = blockNone
	s.index++
	return b
}

// deltaHead starts a content_block_delta frame for the open block; the
// caller appends the delta object and "}}\n\n".
func (s *anthropicStream) deltaHead(b []byte) []byte {
	b = append(b, "event: content_block_delta\ndata: "...)
	b = append(b, `{"type":"content_block_delta","index":`...)
	b = strconv.AppendInt(b, int64(s.index), 10)
	return append(b, `,"delta":`...)
}

// end closes the open block and sends message_delta, with the stop reason
// and the final usage, and message_stop.
func (s *anthropicStream) end(b []byte, t *turn) []byte {
	b = s.close(b)
	u := anthropicUsageOf(t)
	delta := struct {
		Type  string `json:"type"`
		Delta struct {
			StopReason   string  `json:"stop_reason"`
			StopSequence *string `json:"stop_sequence"`
		} `json:"delta"`
		Usage struct {
			OutputTokens             int64  `json:"output_tokens"`
			InputTokens              *int64 `json:"input_tokens,omitempty"`
			CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens,omitempty"`
			CacheReadInputTokens     *int64 `json:"cache_read_input_tokens,omitempty"`
		} `json:"usage"`
	}{Type: "message_delta"}
	delta.Delta.StopReason = anthropicStop(t)
	delta.Usage.OutputTokens = u.OutputTokens
	delta.Usage.InputTokens = t.usage.InputTokens
	delta.Usage.CacheCreationInputTokens, delta.Usage.CacheReadInputTokens = u.CacheCreationInputTokens, u.CacheReadInputTokens
	b = frame(b, "message_delta", string(mustJSON(delta)))
	return frame(b, "message_stop", `{"type":"message_stop"}`)
}

// fail ends a broken stream with an error event, as Anthropic does when an
// answer breaks off (overloaded_error for a transient failure); the
// official clients raise it as an API error.
func (s *anthropicStream) fail(b []byte, e *wireError) []byte {
	_, body := e.anthropic()
	b = append(b, "event: error\ndata: "...)
	b = append(b, body...)
	return append(b, "\n\n"...)
}
