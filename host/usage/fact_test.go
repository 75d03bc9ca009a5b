package usage

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/sdk"
)

// gen is a provider that sends events, then returns err.
type gen struct {
	events []sdk.Event
	err    error
}

func (g gen) Generate(ctx context.Context, _ *sdk.Request, out sdk.Sink) error {
	for _, ev := range g.events {
		if err := out.Send(ctx, ev); err != nil {
			return err
		}
	}
	return g.err
}

func answer(model string, u *sdk.Usage) gen {
	evs := []sdk.Event{{Type: sdk.EventStart, Model: model}, {Type: sdk.EventTextDelta, Text: "hi"}}
	if u != nil {
		evs = append(evs, sdk.Event{Type: sdk.EventUsage, Usage: u})
	}
	return gen{events: append(evs, sdk.Event{Type: sdk.EventFinish, Finish: sdk.FinishStop})}
}

type discard struct{}

func (discard) Send(context.Context, sdk.Event) error { return nil }

// memWriter keeps what the recorder writes.
type memWriter struct {
	mu    sync.Mutex
	facts []Fact
}

func (w *memWriter) Write(_ context.Context, facts []Fact) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.facts = append(w.facts, facts...)
	return nil
}

const factConfig = `
provider "glm" {
  preset = "glm"
  tier   = "sub"
}
provider "claude" {
  preset = "anthropic"
  tier   = "api"
}
provider "mine" {
  preset = "openai"
  tier   = "api"
  pricing {
    input_per_mtok  = 1
    output_per_mtok = 4
  }
}
chain "default" { providers = [provider.glm, provider.claude, provider.mine] }
`

// Every way a Run ends becomes one fact through the observer, with the
// counts the provider reported and no others, priced where a price is
// known.
func TestFactsFromRuns(t *testing.T) {
	t.Parallel()
	prices, err := NewPrices(parseConfig(t, factConfig))
	if err != nil {
		t.Fatal(err)
	}
	n := sdk.Tokens
	down := &sdk.Error{Class: sdk.ClassTransient, Status: 503, Message: "down"}
	refused := gen{err: &sdk.Error{Class: sdk.ClassContentFilter, Status: 400, Message: "refused"}}
	broken := gen{events: []sdk.Event{{Type: sdk.EventTextDelta, Text: "half"}}, err: down}
	for _, tc := range []struct {
		name string
		hops map[string]chain.Generator // by name, in the chain's order glm, claude, mine
		ctx  func() context.Context
		want Fact
	}{
		{name: "a subscription answers, costs nothing, avoids the reference",
			hops: map[string]chain.Generator{"glm": answer("glm-4.6", &sdk.Usage{InputTokens: n(1_000_000), OutputTokens: n(100_000)})},
			want: Fact{Chain: "default", Provider: "glm", Tier: config.TierSub, Model: "glm-4.6", Outcome: OutcomeOK, Attempts: 1,
				Tokens: sdk.Usage{InputTokens: n(1_000_000), OutputTokens: n(100_000)}, CostUSD: f(0), Basis: BasisTier,
				AvoidedUSD: f(5 + 2.5), Reference: DefaultReference}},
		{name: "a fallback to the table's price, cache reads included",
			hops: map[string]chain.Generator{"glm": gen{err: down}, "claude": answer("claude-sonnet-4-5-20250929",
				&sdk.Usage{InputTokens: n(1000), OutputTokens: n(100), CacheReadTokens: n(10_000)})},
			want: Fact{Chain: "default", Provider: "claude", Tier: config.TierAPI, Model: "claude-sonnet-4-5-20250929", Outcome: OutcomeOK, Attempts: 3,
				Tokens:  sdk.Usage{InputTokens: n(1000), OutputTokens: n(100), CacheReadTokens: n(10_000)},
				CostUSD: f(0.003 + 0.0015 + 0.003), Basis: BasisTable, AvoidedUSD: f((0.005 + 0.0025 + 0.005) - (0.003 + 0.0015 + 0.003)), Reference: DefaultReference}},
		{name: "pricing {} wins; the provider reported output only",
			hops: map[string]chain.Generator{"glm": gen{err: &sdk.Error{Class: sdk.ClassPermanent, Status: 401}}, "claude": gen{err: &sdk.Error{Class: sdk.ClassPermanent, Status: 401}},
				"mine": answer("gpt-5", &sdk.Usage{OutputTokens: n(1_000_000)})},
			want: Fact{Chain: "default", Provider: "mine", Tier: config.TierAPI, Model: "gpt-5", Outcome: OutcomeOK, Attempts: 3,
				Tokens: sdk.Usage{OutputTokens: n(1_000_000)}, CostUSD: f(4), Basis: BasisPricing, AvoidedUSD: f(25 - 4), Reference: DefaultReference}},
		{name: "no usage reported: absent counts, absent cost",
			hops: map[string]chain.Generator{"glm": answer("glm-4.6", nil)},
			want: Fact{Chain: "default", Provider: "glm", Tier: config.TierSub, Model: "glm-4.6", Outcome: OutcomeOK, Attempts: 1, Reference: DefaultReference}},
		{name: "exhausted",
			hops: map[string]chain.Generator{"glm": gen{err: down}, "claude": gen{err: down}, "mine": gen{err: down}},
			want: Fact{Chain: "default", Outcome: OutcomeExhausted, Class: sdk.ClassTransient, Attempts: 6}},
		{name: "refused",
			hops: map[string]chain.Generator{"glm": refused},
			want: Fact{Chain: "default", Outcome: OutcomeRefused, Class: sdk.ClassContentFilter, Attempts: 1}},
		{name: "broke off after content",
			hops: map[string]chain.Generator{"glm": broken},
			want: Fact{Chain: "default", Provider: "glm", Tier: config.TierSub, Model: "", Outcome: OutcomeBroken, Class: sdk.ClassTransient, Attempts: 1, Reference: DefaultReference}},
		{name: "the caller went away",
			hops: map[string]chain.Generator{"glm": answer("glm-4.6", nil)},
			ctx: func() context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx
			},
			want: Fact{Chain: "default", Outcome: OutcomeCanceled}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := &memWriter{}
			rec := NewRecorder(w, prices, Options{})
			rec.Start()
			c := &chain.Chain{Name: "default", Observer: rec.Observer(SourceOpenAI), Policy: chain.Policy{Attempts: 2, Backoff: time.Millisecond}}
			for _, name := range []string{"glm", "claude", "mine"} {
				g := tc.hops[name]
				if g == nil {
					g = gen{err: errors.New("not called")}
				}
				c.Hops = append(c.Hops, chain.Hop{Name: name, Provider: g})
			}
			ctx := context.Background()
			if tc.ctx != nil {
				ctx = tc.ctx()
			}
			before := time.Now()
			res, _ := c.Run(ctx, &sdk.Request{}, discard{}, nil)
			rec.Close(context.Background())
			if len(w.facts) != 1 {
				t.Fatalf("%d facts, want 1", len(w.facts))
			}
			got := w.facts[0]
			if got.At.Before(before.Add(-time.Second)) || got.At.After(time.Now()) || got.Total != res.Elapsed {
				t.Errorf("At %v Total %v: not the turn's start and length (Run took %v)", got.At, got.Total, res.Elapsed)
			}
			if tc.want.Outcome == OutcomeOK && (got.FirstToken <= 0 || got.FirstToken > got.Total) {
				t.Errorf("FirstToken %v, Total %v: a streamed answer has a first-token time within the turn", got.FirstToken, got.Total)
			}
			tc.want.Source = SourceOpenAI
			if d := cmp.Diff(tc.want, got, approx, cmpopts.IgnoreFields(Fact{}, "At", "Total", "FirstToken")); d != "" {
				t.Errorf("fact (-want +got):\n%s", d)
			}
		})
	}
}
