package usage

import (
	"context"
	"errors"
	"time"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/sdk"
)

// Source is where a turn came from.
type Source string

const (
	SourceOpenAI    Source = "openai"    // the front door's POST /v1/chat/completions
	SourceAnthropic Source = "anthropic" // the front door's POST /v1/messages
	SourceResponses Source = "responses" // the front door's POST /v1/responses
	SourceAsk       Source = "ask"       // axon ask
	SourceSession   Source = "session"   // a model step of a durable session
	SourcePanel     Source = "panel"     // the panel's Try it
	SourceDelegate  Source = "delegate"  // a sub-task an MCP client delegated (axon mcp, /mcp)
)

// Sources lists every Source, in a stable order.
func Sources() []Source {
	return []Source{SourceOpenAI, SourceAnthropic, SourceResponses, SourceAsk, SourceSession, SourcePanel, SourceDelegate}
}

// Outcome is how a turn ended.
type Outcome string

const (
	OutcomeOK        Outcome = "ok"
	OutcomeExhausted Outcome = "exhausted" // no provider answered
	OutcomeBroken    Outcome = "broken"    // the answer broke off after it reached the client
	OutcomeRefused   Outcome = "refused"   // a content filter refused it: no outage
	OutcomeCanceled  Outcome = "canceled"  // the caller went away: no failure either
	OutcomeError     Outcome = "error"     // the chain could not run at all
)

// Fact is the usage of one turn: one chain Run. A fact is written once
// and never changed. It holds names, classes and numbers, never content.
type Fact struct {
	At       time.Time // when the turn began
	Source   Source
	Chain    string // as run: "default", or "default/glm" for a pin
	Provider string // the provider block that answered (or broke off); "" when none did
	Tier     config.Tier
	Model    string // the model that answered, as the provider reported it
	Outcome  Outcome
	Class    sdk.Class // the error class of a turn that did not answer; "" when it did
	Attempts int       // provider calls, retries included, skipped hops not
	// FirstToken is from the turn's start until its first content reached
	// the client; zero when none did, and for a client that took the
	// answer whole (it got everything at once, at Total).
	FirstToken time.Duration
	Total      time.Duration
	// Tokens are as the provider reported them: a nil count was not
	// reported, which is never the same as zero.
	Tokens sdk.Usage
	// Estimated marks counts axon estimated rather than the provider
	// reported. Nothing estimates today: a count is reported or absent.
	Estimated bool
	// CostUSD is what the turn cost at Basis; nil when unknown (no tokens
	// reported, or a count whose price is unknown), never zero for that.
	CostUSD *float64
	Basis   Basis
	// AvoidedUSD is what the same tokens would have cost at the reference
	// price, less CostUSD; nil when either is unknown. Negative when the
	// provider costs more than the reference.
	AvoidedUSD *float64
	Reference  string // the reference price it was measured against
}

// factOf turns a Run's result into its fact. start is when the turn
// began; prices price it.
func factOf(src Source, start time.Time, res *chain.Result, err error, prices *Prices) Fact {
	f := Fact{At: start, Source: src, Outcome: outcomeOf(err)}
	if f.Outcome != OutcomeOK {
		f.Class = sdk.ClassOf(err)
	}
	if res == nil {
		return f
	}
	f.Chain, f.Provider, f.Model = res.Chain, res.Provider, res.Model
	f.FirstToken, f.Total = res.FirstContent, res.Elapsed
	for _, a := range res.Trail {
		if a.Outcome != chain.OutcomeSkip {
			f.Attempts++
		}
	}
	if res.Usage != nil {
		f.Tokens = *res.Usage
	}
	if f.Provider == "" || prices == nil {
		return f
	}
	f.Tier = prices.Tier(f.Provider)
	price, basis := prices.Lookup(f.Provider, f.Model)
	if f.CostUSD = price.Cost(f.Tokens); f.CostUSD != nil {
		f.Basis = basis
	}
	ref := prices.Reference()
	f.Reference = ref.Name
	if at := ref.Price.Cost(f.Tokens); at != nil && f.CostUSD != nil {
		avoided := *at - *f.CostUSD
		f.AvoidedUSD = &avoided
	}
	return f
}

// outcomeOf names how a Run that returned err ended.
func outcomeOf(err error) Outcome {
	if err == nil {
		return OutcomeOK
	}
	var committed *chain.CommittedError
	var exhausted *chain.ExhaustedError
	switch {
	case errors.As(err, &exhausted) && sdk.ClassOf(err) == sdk.ClassContentFilter:
		return OutcomeRefused
	case errors.As(err, &exhausted):
		return OutcomeExhausted
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		// The caller's context ended (a client that went away mid-stream
		// makes a CommittedError wrapping it): not the chain's failure.
		return OutcomeCanceled
	case errors.As(err, &committed):
		return OutcomeBroken
	}
	return OutcomeError
}
