package chain

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// trivial answers every call at once with start, one text delta, usage and
// finish: what is left to measure is the engine.
type trivial struct{ usage sdk.Usage }

func (p *trivial) Generate(ctx context.Context, _ *sdk.Request, out sdk.Sink) error {
	for _, ev := range []sdk.Event{
		{Type: sdk.EventStart, Model: "m"},
		{Type: sdk.EventTextDelta, Text: "hi"},
		{Type: sdk.EventUsage, Usage: &p.usage},
		{Type: sdk.EventFinish, Finish: sdk.FinishStop},
	} {
		if err := out.Send(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

type failing struct{}

func (failing) Generate(context.Context, *sdk.Request, sdk.Sink) error {
	return &sdk.Error{Class: sdk.ClassPermanent, Status: 404}
}

var discard = sdk.SinkFunc(func(context.Context, sdk.Event) error { return nil })

func benchRequest() *sdk.Request {
	return &sdk.Request{
		System: sdk.SystemPrompt("You are a small pet on a Raspberry Pi."),
		Messages: []sdk.Message{
			{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "what is the weather?"}}},
			{Role: sdk.RoleAssistant, Parts: []sdk.Part{sdk.ToolCall{ID: "c1", Name: "weather", Input: json.RawMessage(`{"city":"Oslo"}`)}}},
			{Role: sdk.RoleTool, Parts: []sdk.Part{sdk.ToolResult{CallID: "c1", Name: "weather", Content: []sdk.Part{sdk.Text{Text: "rain, 4C"}}}}},
			{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "and tomorrow?"}}},
		},
		Tools:     []sdk.ToolSpec{{Name: "weather", Description: "forecast", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		MaxTokens: 256,
	}
}

// BenchmarkDirect is the baseline: the provider called with no chain.
func BenchmarkDirect(b *testing.B) {
	p := &trivial{usage: sdk.Usage{InputTokens: sdk.Tokens(10)}}
	req := benchRequest()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Generate(ctx, req, discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRun is one answered call through a one-hop chain with the
// system clock: request copy, timers, hold-back, trail.
func BenchmarkRun(b *testing.B) {
	c := &Chain{Name: "default", Hops: []Hop{{Name: "p", Provider: &trivial{usage: sdk.Usage{InputTokens: sdk.Tokens(10)}}}}}
	req := benchRequest()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Run(ctx, req, discard, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunFallback: the first hop fails at once, the second answers.
func BenchmarkRunFallback(b *testing.B) {
	c := &Chain{Name: "default", Hops: []Hop{
		{Name: "down", Provider: failing{}},
		{Name: "p", Provider: &trivial{usage: sdk.Usage{InputTokens: sdk.Tokens(10)}}},
	}}
	req := benchRequest()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Run(ctx, req, discard, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTrailString(b *testing.B) {
	trail := Trail{
		{Provider: "glm", Attempt: 1, Outcome: OutcomeRetry, Class: sdk.ClassTransient, Status: 429, Latency: 310e6},
		{Provider: "glm", Attempt: 2, Outcome: OutcomeFallback, Class: sdk.ClassTransient, Status: 529, Wait: 500e6, Latency: 120e6},
		{Provider: "ollama", Attempt: 1, Outcome: OutcomeOK, Latency: 1204e6},
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = trail.String()
	}
}

// streamer answers with start, 16 text deltas, usage and finish, as the
// overhead benchmark's mock upstream does through the openai plugin.
type streamer struct{ usage sdk.Usage }

func (p *streamer) Generate(ctx context.Context, _ *sdk.Request, out sdk.Sink) error {
	if err := out.Send(ctx, sdk.Event{Type: sdk.EventStart, Model: "m"}); err != nil {
		return err
	}
	for range 16 {
		if err := out.Send(ctx, sdk.Event{Type: sdk.EventTextDelta, Text: "lorem "}); err != nil {
			return err
		}
	}
	for _, ev := range []sdk.Event{{Type: sdk.EventUsage, Usage: &p.usage}, {Type: sdk.EventFinish, Finish: sdk.FinishStop}} {
		if err := out.Send(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkRunBuffered is a whole (non-streaming) answer of 19 events: the
// chain holds every one until the finish.
func BenchmarkRunBuffered(b *testing.B) {
	c := &Chain{Name: "default", Hops: []Hop{{Name: "p", Provider: &streamer{usage: sdk.Usage{InputTokens: sdk.Tokens(10)}}, Model: "m"}}}
	req := benchRequest()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Run(ctx, req, discard, nil, Buffered(0)); err != nil {
			b.Fatal(err)
		}
	}
}

// batcher answers as streamer does, its 16 text deltas in one batch, as
// they arrive from a plugin that had them queued.
type batcher struct{ usage sdk.Usage }

func (p *batcher) Generate(ctx context.Context, _ *sdk.Request, out sdk.Sink) error {
	evs := []sdk.Event{{Type: sdk.EventStart, Model: "m"}}
	for range 16 {
		evs = append(evs, sdk.Event{Type: sdk.EventTextDelta, Text: "lorem "})
	}
	if err := sdk.SendBatch(ctx, out, evs); err != nil {
		return err
	}
	return sdk.SendBatch(ctx, out, []sdk.Event{{Type: sdk.EventUsage, Usage: &p.usage}, {Type: sdk.EventFinish, Finish: sdk.FinishStop}})
}

// batchDiscard takes batches and drops them.
type batchDiscard struct{}

func (batchDiscard) Send(context.Context, sdk.Event) error        { return nil }
func (batchDiscard) SendBatch(context.Context, []sdk.Event) error { return nil }

// BenchmarkRunBatches is a streamed answer of 19 events in two batches.
func BenchmarkRunBatches(b *testing.B) {
	c := &Chain{Name: "default", Hops: []Hop{{Name: "p", Provider: &batcher{usage: sdk.Usage{InputTokens: sdk.Tokens(10)}}, Model: "m"}}}
	req := benchRequest()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Run(ctx, req, batchDiscard{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
