package sdk

import "context"

// Stream sends the events of one Generate call to its Sink and keeps the
// rules every provider's stream follows, so that a plugin keeps only what
// its wire format says:
//
//   - EventStart goes out once and first: from Start, or before the first
//     content with the model NewStream was given;
//   - tool calls carry the Index 0, 1, 2, ... in the order they were
//     numbered (ReserveCall, or ToolCall itself), each sent once;
//   - Usage lays every report over the ones before it: a field reported
//     again takes the new value, a field never reported stays nil;
//   - Finish sends that usage, when any was reported, then the one
//     EventFinish; a reply with neither text nor a tool call fails with
//     ErrNoText instead, since an empty answer is not a success;
//   - nothing is sent after the finish;
//   - an upstream event that cannot be decoded is passed over and counted
//     (Skip), unless Strict is set; the count goes out on EventFinish.
//
// The host checks the same rules on its side (the chain holds the start
// and usage until content arrives, and the finish until Generate returns
// nil). A Stream serves one Generate call on one goroutine.
type Stream struct {
	// Strict makes Skip fail the reply instead of passing over an event
	// that cannot be decoded: the plugin's strict_stream attribute. Set it
	// before the first event.
	Strict bool

	out      Sink
	model    string
	started  bool
	finished bool
	text     bool   // a non-empty text delta was sent
	calls    []bool // by Index: the call was sent
	begun    bool   // EventToolCallBegin was sent
	usage    usageFields
	skipped  int // events passed over by Skip
}

// usageFields holds reported counts by value, so that a report costs no
// allocation and the event sent is a copy nobody else holds.
type usageFields struct {
	in, out, cacheRead, cacheWrite, reasoning                int64
	hasIn, hasOut, hasCacheRead, hasCacheWrite, hasReasoning bool
}

// NewStream returns a Stream writing to out. model names the model in
// EventStart when Start is given none: the model the request asked for.
func NewStream(out Sink, model string) *Stream {
	return &Stream{out: out, model: model}
}

// Start sends EventStart naming model, or NewStream's model when model is
// empty. Only the first call sends; later ones do nothing, so a decoder may
// call it on every chunk that names the model.
func (s *Stream) Start(ctx context.Context, model string) error {
	if s.started {
		return nil
	}
	if model == "" {
		model = s.model
	}
	if err := s.send(ctx, Event{Type: EventStart, Model: model}); err != nil {
		return err
	}
	s.started = true
	return nil
}

// Started reports whether EventStart has been sent.
func (s *Stream) Started() bool { return s.started }

// Text sends a text delta. Empty text is dropped.
func (s *Stream) Text(ctx context.Context, text string) error {
	if text == "" {
		return nil
	}
	if err := s.Start(ctx, ""); err != nil {
		return err
	}
	s.text = true
	return s.send(ctx, Event{Type: EventTextDelta, Text: text})
}

// Reasoning sends a reasoning delta: text, a signature that ends the
// current reasoning block, or redacted reasoning. One that carries none of
// them is dropped. Origin is the host's to set and is not sent.
func (s *Stream) Reasoning(ctx context.Context, r Reasoning) error {
	if r.Text == "" && r.Signature == "" && r.Redacted == "" {
		return nil
	}
	if err := s.Start(ctx, ""); err != nil {
		return err
	}
	return s.send(ctx, Event{Type: EventReasoningDelta, Text: r.Text, Signature: r.Signature, Redacted: r.Redacted})
}

// ReserveCall numbers the next tool call before it is complete, for wire
// formats that interleave calls: a call keeps the Index of the order in
// which the calls began, whichever completes first. Send it with
// ToolCallAt.
func (s *Stream) ReserveCall() int {
	s.calls = append(s.calls, false)
	return len(s.calls) - 1
}

// BeginToolCall tells the host a tool call has begun arriving in fragments
// (it is sent whole later, with ToolCall or ToolCallAt). Call it at a call's
// first fragment; only the first call in a reply sends EventToolCallBegin.
// A reply that breaks after it is never continued on another provider: the
// client's answer would miss a call it was about to get.
func (s *Stream) BeginToolCall(ctx context.Context) error {
	if s.begun {
		return nil
	}
	s.begun = true
	return s.send(ctx, Event{Type: EventToolCallBegin})
}

// ToolCall numbers a complete call and sends it.
func (s *Stream) ToolCall(ctx context.Context, call ToolCall) error {
	return s.ToolCallAt(ctx, s.ReserveCall(), call)
}

// ToolCallAt sends a complete call under an Index from ReserveCall. An
// index that was not reserved, or is sent twice, is an error.
func (s *Stream) ToolCallAt(ctx context.Context, index int, call ToolCall) error {
	if index < 0 || index >= len(s.calls) || s.calls[index] {
		return Permanentf("tool call index %d is not reserved or was already sent", index)
	}
	if err := s.Start(ctx, ""); err != nil {
		return err
	}
	s.calls[index] = true
	return s.send(ctx, Event{Type: EventToolCall, ToolCall: &call, Index: index})
}

// ToolCalls is the number of tool calls numbered so far.
func (s *Stream) ToolCalls() int { return len(s.calls) }

// HasContent reports whether the reply holds text or a tool call yet.
func (s *Stream) HasContent() bool { return s.text || len(s.calls) > 0 }

// Usage records the counts u reports; a nil u, or a nil field, reports
// nothing. A later report of a field replaces the earlier one, which suits
// the running totals providers send. Give each count as sdk.Usage defines
// it (disjoint); a provider that must combine wire fields to get there
// reports the combination once, before Finish or Fail.
func (s *Stream) Usage(u *Usage) {
	if u == nil {
		return
	}
	take := func(dst *int64, has *bool, src *int64) {
		if src != nil {
			*dst, *has = *src, true
		}
	}
	f := &s.usage
	take(&f.in, &f.hasIn, u.InputTokens)
	take(&f.out, &f.hasOut, u.OutputTokens)
	take(&f.cacheRead, &f.hasCacheRead, u.CacheReadTokens)
	take(&f.cacheWrite, &f.hasCacheWrite, u.CacheWriteTokens)
	take(&f.reasoning, &f.hasReasoning, u.ReasoningTokens)
}

// Skip reports one upstream event whose data could not be decoded, err
// being the failure to return for it. Unless Strict is set, the event is
// passed over: Skip counts it and returns nil, and the decoder reads on.
// A stream that skipped an event still needs its terminal event (the
// decoder's rule, not Skip's): without one it is a cut stream. An event
// that names itself an error is never skipped; classify it instead.
func (s *Stream) Skip(err error) error {
	if s.Strict {
		return err
	}
	s.skipped++
	return nil
}

// Skipped is the number of events Skip passed over so far.
func (s *Stream) Skipped() int { return s.skipped }

// Finish ends a complete reply: the usage, when any was reported, then
// EventFinish with reason and the count of events Skip passed over. It returns ErrNoText (as an *Error with that
// code) when the reply has neither text nor a tool call, and sends nothing
// then; a wire format with a finer verdict, such as a refusal, checks
// HasContent first and returns its own.
func (s *Stream) Finish(ctx context.Context, reason FinishReason) error {
	if !s.HasContent() {
		return ErrNoText.Newf("provider returned no text")
	}
	for i, sent := range s.calls {
		if !sent {
			return Permanentf("tool call %d was numbered but never sent", i)
		}
	}
	if err := s.sendUsage(ctx); err != nil {
		return err
	}
	if err := s.send(ctx, Event{Type: EventFinish, Finish: reason, Skipped: s.skipped}); err != nil {
		return err
	}
	s.finished = true
	return nil
}

// Fail ends a failed reply: it sends the usage reported so far, since
// those tokens were spent and billed, then returns err (or the sink's
// error, if sending failed). No EventStart is sent for it.
func (s *Stream) Fail(ctx context.Context, err error) error {
	if sendErr := s.sendUsage(ctx); sendErr != nil {
		return sendErr
	}
	return err
}

func (s *Stream) sendUsage(ctx context.Context) error {
	f := s.usage
	if !f.hasIn && !f.hasOut && !f.hasCacheRead && !f.hasCacheWrite && !f.hasReasoning {
		return nil
	}
	u := &Usage{}
	if f.hasIn {
		u.InputTokens = Tokens(f.in)
	}
	if f.hasOut {
		u.OutputTokens = Tokens(f.out)
	}
	if f.hasCacheRead {
		u.CacheReadTokens = Tokens(f.cacheRead)
	}
	if f.hasCacheWrite {
		u.CacheWriteTokens = Tokens(f.cacheWrite)
	}
	if f.hasReasoning {
		u.ReasoningTokens = Tokens(f.reasoning)
	}
	return s.send(ctx, Event{Type: EventUsage, Usage: u})
}

func (s *Stream) send(ctx context.Context, ev Event) error {
	if s.finished {
		return Permanentf("protocol error: %s after the finish", ev.Type)
	}
	return s.out.Send(ctx, ev)
}
