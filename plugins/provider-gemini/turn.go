package main

import (
	"context"
	"strconv"

	"github.com/axonhq/axon/sdk"
)

// turn turns the GenerateContentResponse chunks of one reply into sdk
// events and decides how the reply ends. The SSE, JSON-array and single
// JSON decoders all drive it, so all end a turn by the same rules; the
// sdk.Stream under it keeps the rules every stream follows.
type turn struct {
	s          *sdk.Stream
	seed       string // call id seed when the reply has no responseId
	responseID string
	usage      wireUsage
	finish     enumValue // finishReason as reported
}

// newTurn starts a turn; model is the requested one, for a reply without
// modelVersion.
func newTurn(out sdk.Sink, model, seed string) *turn {
	return &turn{s: sdk.NewStream(out, model), seed: seed}
}

// chunk applies one response chunk. Gemini sends every chunk whole: text
// parts are deltas, function calls arrive complete in one part, usage and
// modelVersion repeat as running values.
func (t *turn) chunk(ctx context.Context, r *wireResponse) error {
	if r.Error != nil {
		return streamError(r.Error)
	}
	if err := t.s.Start(ctx, r.ModelVersion); err != nil {
		return err
	}
	if t.responseID == "" {
		t.responseID = sdk.SafeID(r.ResponseID)
	}
	t.usage.take(r.UsageMetadata)
	if pf := r.PromptFeedback; pf != nil && pf.BlockReason != "" {
		return sdk.Errorf(sdk.ClassContentFilter, "gemini: prompt blocked (%s)", reasonLabel(pf.BlockReason))
	}
	if len(r.Candidates) == 0 {
		return nil
	}
	c := &r.Candidates[0] // one candidate is requested (the default)
	if c.Content != nil {
		for i := range c.Content.Parts {
			if err := t.part(ctx, &c.Content.Parts[i]); err != nil {
				return err
			}
		}
	}
	if c.FinishReason != "" {
		t.finish = c.FinishReason
	}
	return nil
}

// part sends the events of one part. A thought signature travels as a
// signature-only reasoning delta: before the function call it signs (so
// the call and its signature stay together), after the text it ends.
// Parts with no canonical form (code execution, generated media) are
// skipped.
func (t *turn) part(ctx context.Context, p *wirePart) error {
	sig := sdk.Reasoning{Signature: p.ThoughtSignature}
	switch {
	case p.FunctionCall != nil:
		if err := t.s.Reasoning(ctx, sig); err != nil {
			return err
		}
		return t.toolCall(ctx, p.FunctionCall)
	case p.Text != nil:
		var err error
		if p.Thought {
			err = t.s.Reasoning(ctx, sdk.Reasoning{Text: *p.Text})
		} else {
			err = t.s.Text(ctx, *p.Text)
		}
		if err != nil {
			return err
		}
		return t.s.Reasoning(ctx, sig)
	}
	return nil
}

// toolCall sends one complete call. Gemini 3 names its calls; earlier
// models do not, so an id is derived from the response id and the call's
// index: stable for one reply, distinct across replies.
func (t *turn) toolCall(ctx context.Context, fc *wireFunctionCall) error {
	if fc.Name == "" {
		return sdk.Permanentf("gemini: function call without a name")
	}
	args, err := sdk.ToolInput(fc.Args)
	if err != nil {
		return sdk.ErrMalformedToolCall.Newf("gemini: function call args from the model are not a JSON object")
	}
	index := t.s.ReserveCall()
	id := fc.ID
	if id == "" {
		seed := t.responseID
		if seed == "" {
			seed = t.seed
		}
		id = "call_" + seed + "_" + strconv.Itoa(index)
	}
	return t.s.ToolCallAt(ctx, index, sdk.ToolCall{ID: id, Name: fc.Name, Input: args})
}

// end closes a reply whose body ended: usage when any was reported, then
// exactly one finish. A reply without a finishReason was cut; one with
// neither text nor a call failed.
func (t *turn) end(ctx context.Context) error {
	if t.finish == "" {
		return sdk.ErrCutStream.Newf("gemini: stream ended before a finishReason")
	}
	reason := finishReason(t.finish, t.s.ToolCalls() > 0)
	switch t.finish {
	case "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS":
		return sdk.ErrMalformedToolCall.Newf("gemini: the model's function call was refused (%s)", reasonLabel(t.finish))
	}
	if !t.s.HasContent() && reason == sdk.FinishContentFilter {
		return sdk.Errorf(sdk.ClassContentFilter, "gemini: reply blocked (finishReason %s)", reasonLabel(t.finish))
	}
	t.s.Usage(t.usage.canonical())
	return t.s.Finish(ctx, reason)
}

// finishReason maps Gemini's finishReason (by name, or by number for the
// values every API version numbers alike). Reasons this plugin does not
// know (OTHER, and ones added later) end like STOP.
func finishReason(r enumValue, calls bool) sdk.FinishReason {
	switch r {
	case "MAX_TOKENS", "ENUM_2":
		return sdk.FinishLength
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE", "ENUM_3", "ENUM_4":
		return sdk.FinishContentFilter
	}
	if calls {
		return sdk.FinishToolCalls
	}
	return sdk.FinishStop
}

// reasonLabel keeps an upstream enum fit for a message: one sdk.ErrorLabel
// keeps, or "unknown".
func reasonLabel(r enumValue) string {
	if l := sdk.ErrorLabel(string(r)); l != "" {
		return l
	}
	return "unknown"
}

// take keeps the latest reported value of each field. Values are copied:
// u belongs to its decoder.
func (w *wireUsage) take(u *wireUsage) {
	if u == nil {
		return
	}
	copyTo := func(dst **int64, src *int64) {
		if src != nil {
			*dst = sdk.Tokens(*src)
		}
	}
	copyTo(&w.PromptTokenCount, u.PromptTokenCount)
	copyTo(&w.CandidatesTokenCount, u.CandidatesTokenCount)
	copyTo(&w.CachedContentTokenCount, u.CachedContentTokenCount)
	copyTo(&w.ThoughtsTokenCount, u.ThoughtsTokenCount)
	copyTo(&w.ToolUsePromptTokenCount, u.ToolUsePromptTokenCount)
}

// canonical maps usageMetadata to the disjoint sdk counts:
//   - InputTokens: promptTokenCount minus cachedContentTokenCount, plus
//     toolUsePromptTokenCount (tool prompts are billed as input, and
//     totalTokenCount counts them apart from the prompt);
//   - CacheReadTokens: cachedContentTokenCount;
//   - OutputTokens: candidatesTokenCount plus thoughtsTokenCount, since
//     Google bills thinking at the output price and counts it apart;
//   - CacheWriteTokens: never reported (cache storage is billed by time).
//
// A count the reply did not report stays nil.
func (w wireUsage) canonical() *sdk.Usage {
	var u sdk.Usage
	if w.PromptTokenCount != nil {
		in := *w.PromptTokenCount
		if w.CachedContentTokenCount != nil {
			in -= *w.CachedContentTokenCount
		}
		if w.ToolUsePromptTokenCount != nil {
			in += *w.ToolUsePromptTokenCount
		}
		u.InputTokens = sdk.Tokens(max(in, 0))
	}
	if w.CachedContentTokenCount != nil {
		u.CacheReadTokens = sdk.Tokens(*w.CachedContentTokenCount)
	}
	if w.CandidatesTokenCount != nil || w.ThoughtsTokenCount != nil {
		var out int64
		if w.CandidatesTokenCount != nil {
			out += *w.CandidatesTokenCount
		}
		if w.ThoughtsTokenCount != nil {
			out += *w.ThoughtsTokenCount
		}
		u.OutputTokens = sdk.Tokens(out)
	}
	if u.InputTokens == nil && u.OutputTokens == nil && u.CacheReadTokens == nil {
		return nil
	}
	return &u
}
