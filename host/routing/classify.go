package routing

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/sdk"
)

// Classifier is a chain's classifier gate: a local provider that rates
// each request trivial or not, before it is routed, with a short fixed
// prompt. A trivial request goes to the chain's local tier first. Whatever
// else happens — an error, the timeout, an answer that is neither word —
// the request routes as the chain says: a hard task is never trapped on
// the local tier because the rating failed.
type Classifier struct {
	Provider string          // its provider block
	Gen      chain.Generator // that block's plugin; nil: never asked
	Model    string
	Timeout  time.Duration // 0: config.DefaultClassifierTimeout
}

// What the classifier gate decided, as the route line's gate= says it.
const (
	verdictTrivial = "trivial" // rated trivial: the local tier goes first
	verdictComplex = "complex"
)

// classifierPrompt is the fixed system prompt of a rating.
const classifierPrompt = `You sort requests for a model router. Answer with exactly one word.
Answer "trivial" when a small local model answers the request well: a greeting, small talk, a short fact, a simple rewrite, a translation of a sentence.
Answer "complex" for anything else: code, maths, reasoning, analysis, planning, long or specialised answers, or when unsure.`

// What a rating sends and reads at most.
const (
	classifierInput     = 2000 // bytes of the request's last user message
	classifierMaxTokens = 8
	classifierMaxReply  = 64 // bytes of reply text read
	// classifierLong is the estimated input beyond which a request is not
	// rated: a long conversation is no trivial request.
	classifierLong = 2000
)

// rate asks the classifier about req and returns the gate= value:
// "trivial", "complex", "skipped(REASON)" for a request rated by its shape
// alone (tools, images, long: never trivial), or "failed(REASON)"
// (timeout, error, garbage).
func (c *Classifier) rate(ctx context.Context, req *sdk.Request) string {
	if c.Gen == nil {
		return "failed(unavailable)"
	}
	if v := shape(req); v != "" {
		return "skipped(" + v + ")"
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = config.DefaultClassifierTimeout
	}
	rctx, cancel := context.WithTimeoutCause(ctx, timeout, errRatingTimeout)
	defer cancel()
	q := &sdk.Request{
		Model:     c.Model,
		System:    sdk.SystemPrompt(classifierPrompt),
		MaxTokens: classifierMaxTokens,
		Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{
			Text: "Rate this request:\n\n" + lastUserText(req, classifierInput),
		}}}},
	}
	zero := 0.0
	q.Temperature = &zero
	var reply replySink
	err := c.Gen.Generate(rctx, q, &reply)
	switch {
	case errors.Is(context.Cause(rctx), errRatingTimeout), err != nil && timedOut(rctx, err):
		return "failed(timeout)"
	case err != nil:
		return "failed(error)"
	}
	return parseRating(reply.text.String())
}

// timedOut reports whether a rating that failed with err failed by its
// deadline although rctx's own timer has not fired yet: the deadline
// travels to the plugin and on to its egress call, and either of those
// may give up first and answer before the host's timer runs.
func timedOut(rctx context.Context, err error) bool {
	if errors.Is(err, sdk.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	d, ok := rctx.Deadline()
	return ok && !time.Now().Before(d)
}

var errRatingTimeout = errors.New("the classifier's rating timed out")

// shape rates a request by its shape alone, without asking: "" when it
// must be asked.
func shape(req *sdk.Request) string {
	if req == nil {
		return "empty"
	}
	if len(req.Tools) > 0 {
		return "tools"
	}
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			switch p.(type) {
			case sdk.Image:
				return "images"
			case sdk.ToolCall, sdk.ToolResult:
				return "tools"
			}
		}
	}
	if in, _ := EstimateTokens(req); in > classifierLong {
		return "long"
	}
	if lastUserText(req, 1) == "" {
		return "empty"
	}
	return ""
}

// lastUserText is the text of req's last user message, at most limit bytes.
func lastUserText(req *sdk.Request, limit int) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m.Role == sdk.RoleUser {
			s := strings.TrimSpace(sdk.TextOf(m.Parts))
			if len(s) > limit {
				s = s[:limit]
			}
			return s
		}
	}
	return ""
}

// parseRating reads a reply: its first word, without quotes or
// punctuation, must be "trivial" or "complex".
func parseRating(reply string) string {
	w := strings.ToLower(strings.TrimSpace(reply))
	if i := strings.IndexAny(w, " \t\r\n"); i >= 0 {
		w = w[:i]
	}
	w = strings.Trim(w, "\"'`*.,:;!")
	switch w {
	case verdictTrivial, verdictComplex:
		return w
	}
	return "failed(garbage)"
}

// replySink keeps the first classifierMaxReply bytes of a rating's text.
type replySink struct{ text strings.Builder }

func (s *replySink) Send(_ context.Context, ev sdk.Event) error {
	if ev.Type == sdk.EventTextDelta && s.text.Len() < classifierMaxReply {
		rest := classifierMaxReply - s.text.Len()
		if len(ev.Text) > rest {
			ev.Text = ev.Text[:rest]
		}
		s.text.WriteString(ev.Text)
	}
	return nil
}
