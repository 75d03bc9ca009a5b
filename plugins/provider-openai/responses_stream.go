package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"

	"github.com/axonhq/axon/sdk"
)

// responsesEvent is the data of one Responses stream event. Each event
// names its type in the payload, so the SSE event: field is not needed.
type responsesEvent struct {
	Type         string          `json:"type"`
	Delta        string          `json:"delta"`
	OutputIndex  int             `json:"output_index"`
	SummaryIndex int             `json:"summary_index"`
	Arguments    *string         `json:"arguments"`
	Item         *outputItem     `json:"item"`
	Response     *responseObject `json:"response"`
}

// responsesStream follows one streamed response. Function calls are keyed
// by their output_index and go out, in that order, when the response ends.
type responsesStream struct {
	t      *turn
	calls  map[int]*outputItem
	output bool // an output item or delta was seen: the final response's output is not read again
}

// decodeResponsesStream reads a streamed Responses reply into t. It ends at
// response.completed, response.incomplete or response.failed; a stream
// that stops before any of them was cut, and that is a transient failure.
// An event that is not JSON is skipped and counted (an error with
// strict_stream).
func decodeResponsesStream(ctx context.Context, body io.Reader, t *turn) error {
	s := &responsesStream{t: t}
	sr := newEventReader(body)
	for {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return t.fail(ctx, sdk.ErrCutStream.Newf("openai: stream ended before the response finished"))
		}
		if err != nil {
			return t.fail(ctx, readError(ctx, err))
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 || string(data) == doneMarker {
			continue // a keep-alive; Responses streams end without [DONE]
		}
		if string(ev.Type) == "error" {
			return t.fail(ctx, streamError(data)) // an error, even one that is not JSON, is never skipped
		}
		var e responsesEvent
		if err := json.Unmarshal(data, &e); err != nil {
			if err := t.s.Skip(errMalformedChunk.Newf("openai: malformed stream event")); err != nil {
				return t.fail(ctx, err)
			}
			continue
		}
		if e.Type == "error" {
			return t.fail(ctx, streamError(data))
		}
		done, err := s.event(ctx, &e)
		if done || err != nil {
			return err
		}
	}
}

// event applies one event; done reports that the response ended (and the
// turn with it).
func (s *responsesStream) event(ctx context.Context, e *responsesEvent) (done bool, err error) {
	t := s.t
	switch e.Type {
	case "response.created", "response.in_progress", "response.queued":
		if e.Response != nil {
			return false, t.start(ctx, e.Response.Model, e.Response.ID)
		}
		return false, nil
	case "response.completed", "response.incomplete", "response.failed":
		return true, s.end(ctx, e)
	}
	if err := t.start(ctx, "", ""); err != nil {
		return false, err
	}
	switch e.Type {
	case "response.output_text.delta":
		s.output = true
		return false, t.s.Text(ctx, e.Delta)
	case "response.refusal.delta":
		s.output = true
		return false, t.refusal(ctx, e.Delta)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		s.output = true
		return false, t.s.Reasoning(ctx, sdk.Reasoning{Text: e.Delta})
	case "response.reasoning_summary_part.added":
		if e.SummaryIndex > 0 {
			return false, t.s.Reasoning(ctx, sdk.Reasoning{Text: summarySeparator})
		}
	case "response.output_item.added":
		s.output = true
		if e.Item != nil && e.Item.Type == "function_call" {
			c := s.call(e.OutputIndex)
			c.CallID, c.Name, c.Arguments = e.Item.CallID, e.Item.Name, e.Item.Arguments
			return false, s.t.s.BeginToolCall(ctx)
		}
	case "response.function_call_arguments.delta":
		s.output = true
		c := s.call(e.OutputIndex)
		c.Arguments += e.Delta
	case "response.function_call_arguments.done":
		s.output = true
		if e.Arguments != nil {
			s.call(e.OutputIndex).Arguments = *e.Arguments
		}
	case "response.output_item.done":
		s.output = true
		if e.Item == nil {
			return false, nil
		}
		switch e.Item.Type {
		case "function_call":
			item := *e.Item
			c := s.call(e.OutputIndex)
			if item.Arguments == "" {
				item.Arguments = c.Arguments // the done item is whole; keep what streamed if it is not
			}
			*c = item
		case "reasoning":
			// The item is whole only now: its encrypted content differs
			// from the one announced in output_item.added.
			return false, sendEncryptedReasoning(ctx, t, e.Item)
		}
	}
	return false, nil
}

// call returns the function call at output index i, creating it.
func (s *responsesStream) call(i int) *outputItem {
	if s.calls == nil {
		s.calls = make(map[int]*outputItem)
	}
	c, ok := s.calls[i]
	if !ok {
		c = &outputItem{Type: "function_call"}
		s.calls[i] = c
	}
	return c
}

// end closes the turn at the response's final event. A server that sent
// the output only in the final response (no items streamed) is read from
// there.
func (s *responsesStream) end(ctx context.Context, e *responsesEvent) error {
	t := s.t
	r := e.Response
	if r == nil {
		r = &responseObject{}
	}
	if r.Status == "" {
		switch e.Type {
		case "response.incomplete":
			r.Status = "incomplete"
		case "response.failed":
			r.Status = "failed"
		}
	}
	if err := t.start(ctx, r.Model, r.ID); err != nil {
		return err
	}
	if r.Status != "failed" {
		if !s.output {
			if err := applyOutput(ctx, t, r.Output); err != nil {
				return err
			}
		}
		for _, i := range slices.Sorted(maps.Keys(s.calls)) {
			addWholeCall(t, s.calls[i])
		}
	}
	return settle(ctx, t, r)
}
