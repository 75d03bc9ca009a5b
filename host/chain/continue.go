package chain

import (
	"context"

	"github.com/axonhq/axon/sdk"
)

// How a continuation attempt asks a hop to carry on an answer that another
// hop broke off after its text had reached the client (Attempt.Continue).
const (
	// ContinuePrefill sends the original request plus an assistant message
	// holding exactly the text already forwarded; the hop's answer is the
	// rest, spliced into the client's open stream.
	ContinuePrefill = "prefill"
	// ContinueRegenerate sends the original request unchanged, holds the
	// answer until it has passed the text already forwarded, and splices in
	// only what follows, when that prefix matches exactly.
	ContinueRegenerate = "regenerate"
)

// CodeMismatch is the engine finding of a regenerated continuation whose
// answer did not begin with the text the client already has.
const CodeMismatch = "continue_mismatch"

func mismatchError() *sdk.Error {
	return &sdk.Error{Class: sdk.ClassPermanent, Code: CodeMismatch, Message: "the regenerated answer does not begin with the text already sent"}
}

// continuation is what a hopStream needs to continue an answer.
type continuation struct {
	prefix string // regenerate: the text the client already has; "" for prefill
	acc    []byte // regenerate: the text held while it is still within prefix
	passed bool   // the answer is past the prefix: its content flows on
}

func newContinuation(mode, sent string) *continuation {
	if mode == ContinuePrefill {
		return &continuation{passed: true}
	}
	return &continuation{prefix: sent, passed: sent == ""}
}

// admit decides what becomes of one content event of a continuation: keep
// says forward ev (possibly shortened to what follows the prefix); a
// non-nil error is a mismatch and ends the attempt. Reasoning is never
// forwarded: the client's answer is past its reasoning.
func (c *continuation) admit(ev sdk.Event) (sdk.Event, bool, *sdk.Error) {
	switch ev.Type {
	case sdk.EventReasoningDelta:
		return ev, false, nil
	case sdk.EventToolCall:
		if !c.passed {
			return ev, false, mismatchError()
		}
	case sdk.EventTextDelta:
		if c.passed {
			return ev, true, nil
		}
		c.acc = append(c.acc, ev.Text...)
		n := min(len(c.acc), len(c.prefix))
		if string(c.acc[:n]) != c.prefix[:n] {
			return ev, false, mismatchError()
		}
		if len(c.acc) < len(c.prefix) {
			return ev, false, nil
		}
		c.passed = true
		ev.Text = string(c.acc[len(c.prefix):])
		c.acc = nil
		return ev, ev.Text != "", nil
	}
	return ev, true, nil
}

// withPrefill appends the assistant text to r: to the last message when it
// is already the assistant's (the client's own prefill), else as a new
// assistant message.
func withPrefill(r *sdk.Request, text string) *sdk.Request {
	if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == sdk.RoleAssistant {
		r.Messages[n-1].Parts = append(r.Messages[n-1].Parts, sdk.Text{Text: text})
		return r
	}
	r.Messages = append(r.Messages, sdk.Message{Role: sdk.RoleAssistant, Parts: []sdk.Part{sdk.Text{Text: text}}})
	return r
}

// continuable reports whether the committed failure r of hop i may be
// continued on a later hop: a streamed Run, a provider failure (not the
// client's, not the caller's cancel, not a refusal), text forwarded and
// nothing but text (no tool call, no reasoning), and a later hop that
// takes a prefill.
func (c *Chain) continuable(ctx context.Context, e env, i int, r tried) bool {
	if e.opts.buffered || r.client || r.canceled || r.tooled || r.reasoned || r.text == "" ||
		r.attempt.Class == sdk.ClassContentFilter {
		return false
	}
	for _, h := range c.Hops[i+1:] {
		if h.prefill(ctx) {
			return true
		}
	}
	return false
}

// continueAfter carries on the answer hop i broke off with the failure
// first, on each later hop that takes a prefill in turn, until one
// finishes it. It returns nil when the client's answer is complete, else
// a *CommittedError carrying first: a continuation's own failure never
// replaces it.
func (c *Chain) continueAfter(ctx context.Context, run func(hop Hop, mode, sent string) tried, i int, first tried, res *Result) error {
	sent := first.text
	broken := c.Hops[i].Name
	fail := func() error {
		return &CommittedError{Chain: c.Name, Provider: broken, Trail: res.Trail, Err: first.err}
	}
	for _, hop := range c.Hops[i+1:] {
		if !hop.prefill(ctx) {
			continue
		}
		for n, mode := 1, ContinuePrefill; ; n, mode = n+1, ContinueRegenerate {
			if ctx.Err() != nil {
				return fail()
			}
			r := run(hop, mode, sent)
			a := r.attempt
			a.Attempt, a.Continue = n, mode
			switch {
			case r.err == nil:
				a.Outcome = OutcomeOK
				c.record(res, a)
				return nil
			case r.client || r.canceled:
				a.Outcome = OutcomeStop
				c.record(res, a)
				return fail()
			case a.Code == CodeMismatch:
				a.Outcome = OutcomeMismatch
				c.record(res, a)
				return fail()
			case r.committed:
				// More text reached the client before this hop broke off too:
				// a later hop may carry on from there.
				sent += r.text
				broken = hop.Name
				if r.tooled || a.Class == sdk.ClassContentFilter {
					a.Outcome = OutcomeStop
					c.record(res, a)
					return fail()
				}
				a.Outcome, a.Cut = OutcomeCut, int64(len(sent))
				c.record(res, a)
			case mode == ContinuePrefill && a.Class == sdk.ClassPermanent:
				// The hop rejected the prefill (invalid_prefill, or any
				// permanent failure before content): regenerate on it.
				a.Outcome = OutcomeRetry
				c.record(res, a)
				continue
			default:
				a.Outcome = OutcomeFallback
				c.record(res, a)
			}
			break
		}
	}
	return fail()
}
