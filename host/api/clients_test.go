package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// Strict client-side readers of the two stream formats. Each does what the
// official SDKs' stream accumulators do, and fails the test on anything
// those would choke on or silently get wrong; the replay tests run them
// over recorded provider streams and over axon's, and compare the results.

// accCall is one accumulated tool call.
type accCall struct {
	Index     int
	ID, Name  string
	Arguments string
}

// openaiResult is what a client accumulates from a Chat Completions stream.
type openaiResult struct {
	ID, Model string
	Role      string
	Content   string
	Reasoning string
	ToolCalls []accCall
	Finish    string
	Usage     map[string]any // the usage object, nil when none was sent
	Done      bool           // the stream ended with [DONE]
	Error     map[string]any // the error object of an in-band error event
}

func readOpenAIStream(t *testing.T, events []sseEvent) openaiResult {
	t.Helper()
	var r openaiResult
	byIndex := map[int]int{} // tool call index -> position in r.ToolCalls
	for i, ev := range events {
		if r.Done || r.Error != nil {
			t.Fatalf("event %d after the end of the stream: %q", i, ev.Data)
		}
		if strings.HasPrefix(ev.Data, "[DONE]") {
			r.Done = true
			continue
		}
		var chunk struct {
			ID      string          `json:"id"`
			Object  string          `json:"object"`
			Model   string          `json:"model"`
			Error   map[string]any  `json:"error"`
			Usage   json.RawMessage `json:"usage"`
			Choices []struct {
				Index int `json:"index"`
				Delta struct {
					Role             string `json:"role"`
					Content          string `json:"content"`
					ReasoningContent string `json:"reasoning_content"`
					ToolCalls        []struct {
						Index    *int   `json:"index"`
						ID       string `json:"id"`
						Type     string `json:"type"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(ev.Data), &chunk); err != nil {
			t.Fatalf("event %d is not JSON: %v: %q", i, err, ev.Data)
		}
		if strings.Contains(ev.Data, `"error":`) && chunk.Error == nil {
			t.Fatalf("event %d has an error key a client would raise on: %q", i, ev.Data)
		}
		if chunk.Error != nil {
			r.Error = chunk.Error
			continue
		}
		if chunk.Object != "chat.completion.chunk" {
			t.Fatalf("event %d: object %q", i, chunk.Object)
		}
		if r.ID == "" {
			r.ID, r.Model = chunk.ID, chunk.Model
		} else if chunk.ID != r.ID {
			t.Fatalf("event %d: id %q changed from %q", i, chunk.ID, r.ID)
		}
		if len(chunk.Usage) > 0 && string(chunk.Usage) != "null" {
			if err := json.Unmarshal(chunk.Usage, &r.Usage); err != nil {
				t.Fatalf("event %d: usage: %v", i, err)
			}
		}
		if len(chunk.Choices) > 1 || (len(chunk.Choices) == 1 && chunk.Choices[0].Index != 0) {
			t.Fatalf("event %d: want at most one choice, of index 0: %q", i, ev.Data)
		}
		for _, c := range chunk.Choices {
			d := c.Delta
			if d.Role != "" {
				r.Role = d.Role
			}
			r.Content += d.Content
			r.Reasoning += d.ReasoningContent
			for _, tc := range d.ToolCalls {
				if tc.Index == nil {
					t.Fatalf("event %d: tool call without index: %q", i, ev.Data)
				}
				pos, seen := byIndex[*tc.Index]
				if !seen {
					if tc.ID == "" || tc.Type != "function" || tc.Function.Name == "" {
						t.Fatalf("event %d: the first delta of tool call %d lacks id, type or name: %q", i, *tc.Index, ev.Data)
					}
					pos = len(r.ToolCalls)
					byIndex[*tc.Index] = pos
					r.ToolCalls = append(r.ToolCalls, accCall{Index: *tc.Index, ID: tc.ID, Name: tc.Function.Name})
				} else if tc.ID != "" && tc.ID != r.ToolCalls[pos].ID {
					t.Fatalf("event %d: tool call index %d reused by a new call %q: parallel calls collapsed", i, *tc.Index, tc.ID)
				}
				r.ToolCalls[pos].Arguments += tc.Function.Arguments
			}
			if c.FinishReason != nil {
				if r.Finish != "" {
					t.Fatalf("event %d: a second finish_reason", i)
				}
				r.Finish = *c.FinishReason
			}
		}
	}
	return r
}

// events turns an accumulated OpenAI answer back into canonical events,
// the way a provider plugin would report it.
func (r openaiResult) events() []sdk.Event {
	evs := []sdk.Event{start(r.Model)}
	if r.Reasoning != "" {
		evs = append(evs, think(r.Reasoning))
	}
	if r.Content != "" {
		evs = append(evs, text(r.Content))
	}
	for i, c := range r.ToolCalls {
		evs = append(evs, toolCall(i, c.ID, c.Name, c.Arguments))
	}
	if r.Usage != nil {
		u := &sdk.Usage{InputTokens: count(r.Usage, "prompt_tokens"), OutputTokens: count(r.Usage, "completion_tokens")}
		if d, ok := r.Usage["prompt_tokens_details"].(map[string]any); ok {
			u.CacheReadTokens = count(d, "cached_tokens")
		}
		evs = append(evs, sdk.Event{Type: sdk.EventUsage, Usage: u})
	}
	return append(evs, finish(sdk.FinishReason(r.Finish)))
}

// count reads a token count from a JSON object, nil when absent.
func count(m map[string]any, key string) *int64 {
	if v, ok := m[key].(float64); ok {
		return sdk.Tokens(int64(v))
	}
	return nil
}

// accBlock is one accumulated Anthropic content block.
type accBlock struct {
	Type      string
	Text      string
	Thinking  string
	Signature string
	Data      string
	ID, Name  string
	Input     string // the concatenated partial_json, or the start block's input
}

// anthropicResult is what a client accumulates from a Messages stream.
type anthropicResult struct {
	ID, Model  string
	Content    []accBlock
	StopReason string
	Usage      map[string]any // message_start usage, overlaid by message_delta usage
	Stopped    bool           // the stream ended with message_stop
	Error      map[string]any // the error object of an error event
}

func readAnthropicStream(t *testing.T, events []sseEvent) anthropicResult {
	t.Helper()
	var r anthropicResult
	open := -1 // index of the open block
	for i, ev := range events {
		if r.Stopped || r.Error != nil {
			t.Fatalf("event %d after the end of the stream: %q", i, ev.Event)
		}
		if ev.Event == "" {
			t.Fatalf("event %d has no event name; the official clients skip it: %q", i, ev.Data)
		}
		var e struct {
			Type    string `json:"type"`
			Index   int    `json:"index"`
			Message struct {
				ID    string         `json:"id"`
				Model string         `json:"model"`
				Usage map[string]any `json:"usage"`
			} `json:"message"`
			ContentBlock struct {
				Type      string          `json:"type"`
				Text      string          `json:"text"`
				Thinking  string          `json:"thinking"`
				Signature string          `json:"signature"`
				Data      string          `json:"data"`
				ID        string          `json:"id"`
				Name      string          `json:"name"`
				Input     json.RawMessage `json:"input"`
			} `json:"content_block"`
			Delta struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				Thinking    string `json:"thinking"`
				Signature   string `json:"signature"`
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
			Usage map[string]any `json:"usage"`
			Error map[string]any `json:"error"`
		}
		if err := json.Unmarshal([]byte(ev.Data), &e); err != nil {
			t.Fatalf("event %d is not JSON: %v: %q", i, err, ev.Data)
		}
		if e.Type != ev.Event {
			t.Fatalf("event %d: event name %q, data type %q", i, ev.Event, e.Type)
		}
		if i == 0 && e.Type != "message_start" && e.Type != "error" {
			t.Fatalf("the stream starts with %q, not message_start", e.Type)
		}
		switch e.Type {
		case "message_start":
			if i != 0 {
				t.Fatalf("event %d: a second message_start", i)
			}
			r.ID, r.Model, r.Usage = e.Message.ID, e.Message.Model, e.Message.Usage
		case "ping":
		case "content_block_start":
			if open != -1 {
				t.Fatalf("event %d: block %d starts while block %d is open", i, e.Index, open)
			}
			if e.Index != len(r.Content) {
				t.Fatalf("event %d: block index %d, want %d (the clients require consecutive indices)", i, e.Index, len(r.Content))
			}
			cb := e.ContentBlock
			r.Content = append(r.Content, accBlock{Type: cb.Type, Text: cb.Text, Thinking: cb.Thinking, Signature: cb.Signature,
				Data: cb.Data, ID: cb.ID, Name: cb.Name, Input: string(cb.Input)})
			open = e.Index
		case "content_block_delta":
			if e.Index != open {
				t.Fatalf("event %d: delta for block %d, open block %d", i, e.Index, open)
			}
			b := &r.Content[open]
			switch d := e.Delta; d.Type {
			case "text_delta":
				b.Text += d.Text
			case "thinking_delta":
				b.Thinking += d.Thinking
			case "signature_delta":
				b.Signature += d.Signature
			case "input_json_delta":
				if d.PartialJSON != "" {
					if b.Input == "{}" {
						b.Input = ""
					}
					b.Input += d.PartialJSON
				}
			default:
				t.Fatalf("event %d: unknown delta type %q", i, d.Type)
			}
		case "content_block_stop":
			if e.Index != open {
				t.Fatalf("event %d: stop for block %d, open block %d", i, e.Index, open)
			}
			open = -1
		case "message_delta":
			if open != -1 {
				t.Fatalf("event %d: message_delta while block %d is open", i, open)
			}
			if _, ok := e.Usage["output_tokens"]; !ok {
				t.Fatalf("event %d: message_delta usage without output_tokens (the Python client reads it)", i)
			}
			r.StopReason = e.Delta.StopReason
			for k, v := range e.Usage {
				r.Usage[k] = v
			}
		case "message_stop":
			r.Stopped = true
		case "error":
			r.Error = e.Error
		default:
			t.Fatalf("event %d: unknown event %q", i, e.Type)
		}
	}
	return r
}

// events turns an accumulated Anthropic answer back into canonical events.
func (r anthropicResult) events() []sdk.Event {
	evs := []sdk.Event{start(r.Model)}
	calls := 0
	for _, b := range r.Content {
		switch b.Type {
		case "thinking":
			evs = append(evs, think(b.Thinking), signed(b.Signature))
		case "redacted_thinking":
			evs = append(evs, redacted(b.Data))
		case "text":
			evs = append(evs, text(b.Text))
		case "tool_use":
			evs = append(evs, toolCall(calls, b.ID, b.Name, b.Input))
			calls++
		}
	}
	evs = append(evs, sdk.Event{Type: sdk.EventUsage, Usage: &sdk.Usage{
		InputTokens: count(r.Usage, "input_tokens"), OutputTokens: count(r.Usage, "output_tokens"),
		CacheReadTokens: count(r.Usage, "cache_read_input_tokens"), CacheWriteTokens: count(r.Usage, "cache_creation_input_tokens"),
	}})
	reason := map[string]sdk.FinishReason{"end_turn": sdk.FinishStop, "max_tokens": sdk.FinishLength,
		"tool_use": sdk.FinishToolCalls, "refusal": sdk.FinishContentFilter, "stop_sequence": sdk.FinishStop}[r.StopReason]
	return append(evs, finish(reason))
}
