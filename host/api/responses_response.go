package api

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/axonhq/axon/sdk"
)

// responseObject is a Responses API response. Every field the official
// clients read is present; the echoed request fields keep the API's
// defaults when the request left them out.
type responseObject struct {
	ID                 string            `json:"id"`
	Object             string            `json:"object"` // "response"
	CreatedAt          int64             `json:"created_at"`
	Status             string            `json:"status"` // in_progress, completed, incomplete, failed
	Error              *responsesError   `json:"error"`
	IncompleteDetails  *incompleteReason `json:"incomplete_details"`
	Instructions       *string           `json:"instructions"`
	MaxOutputTokens    *int              `json:"max_output_tokens"`
	Model              string            `json:"model"`
	Output             []responsesOut    `json:"output"`
	ParallelToolCalls  bool              `json:"parallel_tool_calls"`
	PreviousResponseID *string           `json:"previous_response_id"`
	Reasoning          reasoningEcho     `json:"reasoning"`
	Store              bool              `json:"store"`
	Temperature        *float64          `json:"temperature"`
	Text               json.RawMessage   `json:"text"`
	ToolChoice         json.RawMessage   `json:"tool_choice"`
	Tools              []responsesTool   `json:"tools"`
	TopP               json.RawMessage   `json:"top_p"`
	Truncation         string            `json:"truncation"`
	Usage              *responsesUsage   `json:"usage"`
	Metadata           json.RawMessage   `json:"metadata"`
}

type responsesError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type incompleteReason struct {
	Reason string `json:"reason"` // max_output_tokens, content_filter
}

type reasoningEcho struct {
	Effort  json.RawMessage `json:"effort"`
	Summary *string         `json:"summary"`
}

// responsesOut is one output item: a message, a function_call or a
// reasoning item. The same shape is an input item of a later request.
type responsesOut struct {
	Type      string            `json:"type"`
	ID        string            `json:"id"`
	Status    string            `json:"status,omitempty"`
	Role      string            `json:"role,omitempty"`
	Content   *[]outputText     `json:"content,omitempty"`
	CallID    string            `json:"call_id,omitempty"`
	Name      string            `json:"name,omitempty"`
	Arguments *string           `json:"arguments,omitempty"`
	Summary   *[]reasoningShown `json:"summary,omitempty"`
}

type outputText struct {
	Type        string     `json:"type"` // output_text
	Text        string     `json:"text"`
	Annotations []struct{} `json:"annotations"`
}

type reasoningShown struct {
	Type string `json:"type"` // summary_text
	Text string `json:"text"`
}

// responsesUsage holds what the provider reported; the details are absent
// when their count is unknown. input_tokens includes cached tokens, as on
// OpenAI's wire.
type responsesUsage struct {
	InputTokens         int64            `json:"input_tokens"`
	InputTokensDetails  *cachedDetails   `json:"input_tokens_details,omitempty"`
	OutputTokens        int64            `json:"output_tokens"`
	OutputTokensDetails *reasoningDetail `json:"output_tokens_details,omitempty"`
	TotalTokens         int64            `json:"total_tokens"`
}

type cachedDetails struct {
	CachedTokens int64 `json:"cached_tokens"`
}

type reasoningDetail struct {
	ReasoningTokens int64 `json:"reasoning_tokens"`
}

// responsesUsageOf is nil when the provider reported no usage.
func responsesUsageOf(t *turn) *responsesUsage {
	if !t.hasUsage {
		return nil
	}
	u := t.usage
	val := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	out := &responsesUsage{
		InputTokens:  val(u.InputTokens) + val(u.CacheReadTokens) + val(u.CacheWriteTokens),
		OutputTokens: val(u.OutputTokens),
	}
	out.TotalTokens = out.InputTokens + out.OutputTokens
	if u.CacheReadTokens != nil {
		out.InputTokensDetails = &cachedDetails{CachedTokens: *u.CacheReadTokens}
	}
	if u.ReasoningTokens != nil {
		out.OutputTokensDetails = &reasoningDetail{ReasoningTokens: *u.ReasoningTokens}
	}
	return out
}

// response is the response object of c as far as it is known: status,
// output and usage come from the caller.
func (d responsesDialect) response(m meta, status string, output []responsesOut) responseObject {
	r := responseObject{
		ID: m.id, Object: "response", CreatedAt: m.created, Status: status, Model: m.model,
		Output: output, Truncation: "disabled",
		Text: json.RawMessage(`{"format":{"type":"text"}}`), ToolChoice: json.RawMessage(`"auto"`),
		Tools: []responsesTool{}, Metadata: json.RawMessage(`{}`), ParallelToolCalls: true,
		Reasoning: reasoningEcho{Effort: json.RawMessage("null")}, TopP: json.RawMessage("1.0"),
	}
	if output == nil {
		r.Output = []responsesOut{}
	}
	rc := d.rc()
	e := rc.echo
	r.Instructions, r.MaxOutputTokens, r.Temperature, r.Store = e.Instructions, e.MaxOutputTokens, e.Temperature, rc.store
	r.ParallelToolCalls = e.ParallelToolCalls
	if rc.previous != "" {
		r.PreviousResponseID = &rc.previous
	}
	if !absent(e.TopP) {
		r.TopP = e.TopP
	}
	if !absent(e.ToolChoice) {
		r.ToolChoice = e.ToolChoice
	}
	if e.Tools != nil {
		r.Tools = e.Tools
	}
	if len(e.Text) > 0 {
		r.Text = e.Text
	}
	if !absent(e.Effort) {
		r.Reasoning.Effort = e.Effort
	}
	if !absent(e.Metadata) {
		r.Metadata = e.Metadata
	}
	if r.Temperature == nil {
		one := 1.0
		r.Temperature = &one
	}
	return r
}

// rc is the request's Responses fields; a dialect without a call (an
// error before decoding) has the API's defaults.
func (d responsesDialect) rc() *responsesCall {
	if d.c == nil || d.c.responses == nil {
		return &responsesCall{store: true, echo: responsesEcho{ParallelToolCalls: true}}
	}
	return d.c.responses
}

// finished fills in the end of an answer: its status (an answer cut by the
// output limit or a content filter is "incomplete"), and usage.
func finished(r *responseObject, t *turn) {
	r.Status = "completed"
	switch t.finishReason() {
	case sdk.FinishLength:
		r.Status, r.IncompleteDetails = "incomplete", &incompleteReason{Reason: "max_output_tokens"}
	case sdk.FinishContentFilter:
		r.Status, r.IncompleteDetails = "incomplete", &incompleteReason{Reason: "content_filter"}
	}
	r.Usage = responsesUsageOf(t)
}

// itemID names the output items of response id: msg_, fc_ and rs_ with
// the response's own suffix and the item's index.
func itemID(kind, responseID string, index int) string {
	return kind + "_" + strings.TrimPrefix(responseID, "resp_") + "_" + strconv.Itoa(index)
}

// outputItems lays an answer's parts out as output items: consecutive
// text as one message, each reasoning block and each tool call an item.
func outputItems(responseID string, parts []sdk.Part) []responsesOut {
	var out []responsesOut
	for _, p := range parts {
		switch p := p.(type) {
		case sdk.Text:
			if n := len(out); n > 0 && out[n-1].Type == "message" {
				(*out[n-1].Content)[0].Text += p.Text
				continue
			}
			out = append(out, messageItem(itemID("msg", responseID, len(out)), "completed", p.Text))
		case sdk.Reasoning:
			if p.Text == "" {
				continue // a signature or encrypted reasoning alone shows nothing here
			}
			out = append(out, reasoningItem(itemID("rs", responseID, len(out)), p.Text))
		case sdk.ToolCall:
			out = append(out, callItem(itemID("fc", responseID, len(out)), "completed", p.ID, p.Name, string(p.Input)))
		}
	}
	return out
}

func messageItem(id, status, text string) responsesOut {
	content := []outputText{{Type: "output_text", Text: text, Annotations: []struct{}{}}}
	return responsesOut{Type: "message", ID: id, Status: status, Role: "assistant", Content: &content}
}

func reasoningItem(id, text string) responsesOut {
	summary := []reasoningShown{}
	if text != "" {
		summary = append(summary, reasoningShown{Type: "summary_text", Text: text})
	}
	return responsesOut{Type: "reasoning", ID: id, Summary: &summary}
}

func callItem(id, status, callID, name, args string) responsesOut {
	return responsesOut{Type: "function_call", ID: id, Status: status, CallID: callID, Name: name, Arguments: &args}
}

// whole renders a complete response object.
func (d responsesDialect) whole(m meta, t *turn) ([]byte, error) {
	r := d.response(m, "completed", outputItems(m.id, t.content()))
	finished(&r, t)
	return json.Marshal(r)
}

// responsesStream writes the typed event sequence of a streamed response:
// response.created and response.in_progress, then per output item
// output_item.added, its deltas and its .done events, output_item.done,
// and last response.completed (response.incomplete at the output limit),
// or response.failed and an error event when the answer broke off. Every
// event carries its sequence_number. It keeps the items it sent, for the
// final response and the stored one.
type responsesStream struct {
	d       responsesDialect
	m       meta
	seq     int
	items   []responsesOut
	pending *strings.Builder // the text of the last item while it takes deltas
	final   []byte           // the last response object sent, for the store
}

var _ streamEncoder = (*responsesStream)(nil)

func (d responsesDialect) stream(m meta, _ *call) streamEncoder {
	return &responsesStream{d: d, m: m}
}

// frame appends one event: its type as the SSE event name and in the data,
// with the next sequence number.
func (s *responsesStream) frame(b []byte, typ string, fields map[string]any) []byte {
	fields["type"] = typ
	fields["sequence_number"] = s.seq
	s.seq++
	b = append(b, "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: "...)
	b = append(b, mustJSON(fields)...)
	return append(b, "\n\n"...)
}

// open sends response.created and response.in_progress.
func (s *responsesStream) open(b []byte, _ *turn) []byte {
	r := s.d.response(s.m, "in_progress", nil)
	b = s.frame(b, "response.created", map[string]any{"response": r})
	return s.frame(b, "response.in_progress", map[string]any{"response": r})
}

// last is the item still taking deltas, nil when none is.
func (s *responsesStream) last() *responsesOut {
	if s.pending == nil || len(s.items) == 0 {
		return nil
	}
	return &s.items[len(s.items)-1]
}

// closeOpen sends the .done events of the item taking deltas.
func (s *responsesStream) closeOpen(b []byte) []byte {
	it := s.last()
	if it == nil {
		return b
	}
	text := s.pending.String()
	s.pending = nil
	idx := len(s.items) - 1
	switch it.Type {
	case "message":
		it.Status = "completed"
		(*it.Content)[0].Text = text
		part := (*it.Content)[0]
		b = s.frame(b, "response.output_text.done", map[string]any{"item_id": it.ID, "output_index": idx, "content_index": 0, "text": text, "logprobs": []struct{}{}})
		b = s.frame(b, "response.content_part.done", map[string]any{"item_id": it.ID, "output_index": idx, "content_index": 0, "part": part})
	case "reasoning":
		shown := reasoningShown{Type: "summary_text", Text: text}
		*it.Summary = []reasoningShown{shown}
		b = s.frame(b, "response.reasoning_summary_text.done", map[string]any{"item_id": it.ID, "output_index": idx, "summary_index": 0, "text": text})
		b = s.frame(b, "response.reasoning_summary_part.done", map[string]any{"item_id": it.ID, "output_index": idx, "summary_index": 0, "part": shown})
	}
	return s.frame(b, "response.output_item.done", map[string]any{"output_index": idx, "item": *it})
}

// begin opens a new item of kind typ for deltas.
func (s *responsesStream) begin(b []byte, typ string) []byte {
	b = s.closeOpen(b)
	idx := len(s.items)
	var it responsesOut
	switch typ {
	case "message":
		it = messageItem(itemID("msg", s.m.id, idx), "in_progress", "")
		empty := []outputText{}
		added := it
		added.Content = &empty
		s.items = append(s.items, it)
		b = s.frame(b, "response.output_item.added", map[string]any{"output_index": idx, "item": added})
		b = s.frame(b, "response.content_part.added", map[string]any{"item_id": it.ID, "output_index": idx, "content_index": 0, "part": outputText{Type: "output_text", Annotations: []struct{}{}}})
	case "reasoning":
		it = reasoningItem(itemID("rs", s.m.id, idx), "")
		s.items = append(s.items, it)
		b = s.frame(b, "response.output_item.added", map[string]any{"output_index": idx, "item": it})
		b = s.frame(b, "response.reasoning_summary_part.added", map[string]any{"item_id": it.ID, "output_index": idx, "summary_index": 0, "part": reasoningShown{Type: "summary_text"}})
	}
	s.pending = &strings.Builder{}
	return b
}

// event sends one content event's frames. A tool call arrives whole: its
// item is added, its arguments go as one delta, and it is done.
func (s *responsesStream) event(b []byte, _ *turn, ev sdk.Event) []byte {
	switch ev.Type {
	case sdk.EventTextDelta:
		if ev.Text == "" {
			return b
		}
		if it := s.last(); it == nil || it.Type != "message" {
			b = s.begin(b, "message")
		}
		s.pending.WriteString(ev.Text)
		it := s.last()
		return s.frame(b, "response.output_text.delta", map[string]any{"item_id": it.ID, "output_index": len(s.items) - 1, "content_index": 0, "delta": ev.Text, "logprobs": []struct{}{}})
	case sdk.EventReasoningDelta:
		if ev.Text == "" {
			return b // a signature or encrypted reasoning shows nothing here
		}
		if it := s.last(); it == nil || it.Type != "reasoning" {
			b = s.begin(b, "reasoning")
		}
		s.pending.WriteString(ev.Text)
		it := s.last()
		return s.frame(b, "response.reasoning_summary_text.delta", map[string]any{"item_id": it.ID, "output_index": len(s.items) - 1, "summary_index": 0, "delta": ev.Text})
	case sdk.EventToolCall:
		b = s.closeOpen(b)
		idx := len(s.items)
		id := itemID("fc", s.m.id, idx)
		args := string(ev.ToolCall.Input)
		b = s.frame(b, "response.output_item.added", map[string]any{"output_index": idx, "item": callItem(id, "in_progress", ev.ToolCall.ID, ev.ToolCall.Name, "")})
		b = s.frame(b, "response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": idx, "delta": args})
		b = s.frame(b, "response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": idx, "name": ev.ToolCall.Name, "arguments": args})
		done := callItem(id, "completed", ev.ToolCall.ID, ev.ToolCall.Name, args)
		s.items = append(s.items, done)
		return s.frame(b, "response.output_item.done", map[string]any{"output_index": idx, "item": done})
	}
	return b
}

// end closes the last item and sends the whole response.
func (s *responsesStream) end(b []byte, t *turn) []byte {
	b = s.closeOpen(b)
	r := s.d.response(s.m, "completed", s.items)
	finished(&r, t)
	typ := "response.completed"
	if r.Status == "incomplete" {
		typ = "response.incomplete"
	}
	s.final = mustJSON(r)
	return s.frame(b, typ, map[string]any{"response": json.RawMessage(s.final)})
}

// fail ends a broken stream: the items sent so far are left as they were
// (their .done events are not sent: they did not complete), an error event
// says what happened, and response.failed carries it in the response.
func (s *responsesStream) fail(b []byte, e *wireError) []byte {
	if it := s.last(); it != nil {
		it.Status = "incomplete"
		s.pending = nil
	}
	b = s.frame(b, "error", map[string]any{"code": e.code, "message": e.message, "param": nilIfEmpty(e.param)})
	r := s.d.response(s.m, "failed", s.items)
	r.Error = &responsesError{Code: e.code, Message: e.message}
	return s.frame(b, "response.failed", map[string]any{"response": r})
}

// finalBody is the response object of response.completed, once sent.
func (s *responsesStream) finalBody() []byte { return s.final }

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
