package main

import (
	"context"
	"errors"

	"github.com/axonhq/axon/sdk"
)

// turn turns what the upstream says about one assistant reply into sdk
// events and decides how the reply ends. The streaming and non-streaming
// decoders both drive it, so both end a reply by the same rules; the
// sdk.Stream under it keeps the rules every stream follows.
//
// Text and reasoning go out as they arrive. Tool calls, usage and the
// finish go out in end, after the upstream has finished: calls are whole
// only then, and usage may come in a chunk after the finish_reason.
type turn struct {
	s       *sdk.Stream
	reqBody []byte // the request as sent, to derive missing tool call ids
	respID  string // the response id, likewise
	calls   toolCalls
	usage   sdk.Usage // as the wire counts: InputTokens includes the cached tokens
	finish  string    // the last finish_reason reported
	refused bool
}

// newTurn starts a turn; model is the requested one, for servers whose
// chunks name none.
func newTurn(out sdk.Sink, model string, reqBody []byte) *turn {
	return &turn{s: sdk.NewStream(out, model), reqBody: reqBody}
}

// start sends EventStart once, naming the model of the first chunk, and
// keeps that chunk's response id.
func (t *turn) start(ctx context.Context, model, id string) error {
	if !t.s.Started() {
		t.respID = id
	}
	return t.s.Start(ctx, model)
}

// chunk applies one chunk, or a whole non-streaming completion. Only
// choice 0 is read: the plugin never asks for more.
func (t *turn) chunk(ctx context.Context, c *chunk, whole bool) error {
	if err := t.start(ctx, c.Model, c.ID); err != nil {
		return err
	}
	t.addUsage(c.Usage)
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue
		}
		d := &ch.Delta
		if whole {
			d = &ch.Message
		}
		if err := t.delta(ctx, d, whole); err != nil {
			return err
		}
		t.finishReason(ch.FinishReason)
	}
	return nil
}

// refusal is the model declining to answer: the text is shown like any
// other, and the reply ends as content_filter.
func (t *turn) refusal(ctx context.Context, s string) error {
	if s == "" {
		return nil
	}
	t.refused = true
	return t.s.Text(ctx, s)
}

// delta applies one streamed delta or whole message. Reasoning goes first:
// servers that send both in one message mean it to precede the text.
func (t *turn) delta(ctx context.Context, d *delta, whole bool) error {
	for _, r := range [...]string{d.ReasoningContent, d.Reasoning, d.Content.Reasoning} {
		if err := t.s.Reasoning(ctx, sdk.Reasoning{Text: r}); err != nil {
			return err
		}
	}
	if err := t.s.Text(ctx, d.Content.Text); err != nil {
		return err
	}
	if err := t.refusal(ctx, d.Refusal); err != nil {
		return err
	}
	for i := range d.ToolCalls {
		if whole {
			t.calls.addWhole(&d.ToolCalls[i])
		} else {
			t.calls.add(&d.ToolCalls[i])
		}
	}
	if len(d.ToolCalls) > 0 && !whole {
		return t.s.BeginToolCall(ctx)
	}
	return nil
}

func (t *turn) finishReason(r string) {
	if r != "" {
		t.finish = r
	}
}

// addUsage takes every field u reports. Servers that repeat usage (Groq
// sends it on the finish chunk and again alone) report running totals, so
// the latest report wins.
func (t *turn) addUsage(u *wireUsage) {
	if u == nil {
		return
	}
	take := func(dst **int64, src *int64) {
		if src != nil {
			*dst = sdk.Tokens(*src) // u belongs to its decoder
		}
	}
	take(&t.usage.InputTokens, u.PromptTokens)
	take(&t.usage.OutputTokens, u.CompletionTokens)
	take(&t.usage.CacheReadTokens, u.PromptCacheHitTokens)
	take(&t.usage.CacheReadTokens, u.NumCachedTokens)
	if d := u.PromptTokensDetails; d != nil {
		take(&t.usage.CacheReadTokens, d.CachedTokens)
		take(&t.usage.CacheWriteTokens, d.CacheWriteTokens)
	}
}

// end closes a reply the upstream finished: it sends the tool calls, the
// usage and the one EventFinish, or fails the turn.
func (t *turn) end(ctx context.Context) error {
	calls, err := t.calls.finish(func() string { return callIDSeed(t.reqBody, t.respID) })
	if err != nil {
		return t.fail(ctx, err)
	}
	reason := finishReason(t.finish, len(calls) > 0, t.refused)
	if reason == "" {
		return t.fail(ctx, &sdk.Error{Class: sdk.ClassTransient, Code: "upstream_error", Message: "openai: upstream ended the reply with finish_reason error"})
	}
	if !t.s.HasContent() && len(calls) == 0 && reason == sdk.FinishContentFilter {
		return t.fail(ctx, &sdk.Error{Class: sdk.ClassContentFilter, Message: "openai: reply blocked by the content filter"})
	}
	for i := range calls {
		if err := t.s.ToolCall(ctx, calls[i]); err != nil {
			return err
		}
	}
	t.s.Usage(canonicalUsage(t.usage))
	err = t.s.Finish(ctx, reason)
	if errors.Is(err, sdk.ErrNoText) {
		return t.s.Fail(ctx, err) // the tokens were spent all the same
	}
	return err
}

// fail ends a failed turn: usage the upstream reported is still sent, since
// the tokens were spent and billed, then err is returned.
func (t *turn) fail(ctx context.Context, err error) error {
	t.s.Usage(canonicalUsage(t.usage))
	return t.s.Fail(ctx, err)
}

// canonicalUsage makes the counts disjoint, as sdk.Usage defines them: on
// this wire prompt_tokens includes the cached tokens, so they are taken out
// of InputTokens (never below zero).
func canonicalUsage(u sdk.Usage) *sdk.Usage {
	if u.InputTokens == nil {
		return &u
	}
	in := *u.InputTokens
	for _, c := range []*int64{u.CacheReadTokens, u.CacheWriteTokens} {
		if c != nil {
			in -= *c
		}
	}
	u.InputTokens = sdk.Tokens(max(in, 0))
	return &u
}

// finishReason maps the wire finish_reason. A reply that carries tool calls
// ends as tool_calls even when the server says stop (older Ollama and some
// gateways do), or a client would never run the tools. An absent reason
// (a stream that ended with [DONE] only) is a plain stop. "error"
// (OpenRouter) maps to "" and fails the turn.
func finishReason(wire string, hasCalls, refused bool) sdk.FinishReason {
	var r sdk.FinishReason
	switch wire {
	case "length", "max_tokens", "model_length":
		r = sdk.FinishLength
	case "tool_calls", "function_call", "tool_use":
		r = sdk.FinishToolCalls
	case "content_filter", "safety", "recitation", "blocklist", "prohibited_content", "spii":
		r = sdk.FinishContentFilter
	case "error":
		return ""
	default: // stop, eos, end_turn, stop_sequence, absent, or unknown
		r = sdk.FinishStop
	}
	if refused && r == sdk.FinishStop {
		r = sdk.FinishContentFilter
	}
	if hasCalls && r == sdk.FinishStop {
		r = sdk.FinishToolCalls
	}
	return r
}
