package chain

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

// TestRunStreaming covers the commit point: fallback is transparent until
// the first content event reaches the client, and impossible after it.
func TestRunStreaming(t *testing.T) {
	t.Parallel()
	local := answer("qwen2.5:3b", "hello")
	localEvents := answerEvents("qwen2.5:3b", "hello")
	overloaded := &sdk.Error{Class: sdk.ClassTransient, Status: 529, Code: "overloaded", Message: "overloaded"}
	call := sdk.ToolCall{ID: "call_1", Name: "weather", Input: json.RawMessage(`{"city":"Oslo"}`)}

	runAll(t, []runCase{
		{
			name:   "a hop failing before content leaves no trace at the client",
			policy: Policy{Attempts: 1},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{start("glm-4.6"), usage(5, 0), fail(overloaded)}}},
				{name: "ollama", calls: [][]step{local}},
			},
			wantTrail:  "glm#1 fallback transient/529/overloaded t=0ms, ollama#1 ok t=0ms",
			wantEvents: localEvents, wantProvider: "ollama", wantModel: "qwen2.5:3b",
		},
		{
			name: "a failure after the first content is committed, never a fallback",
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{start("glm-4.6"), text("par"), fail(overloaded)}}},
				{name: "ollama"},
			},
			wantTrail: "glm#1 stop transient/529/overloaded committed t=0ms",
			wantErr:   committed, wantClass: sdk.ClassTransient,
			wantEvents:   []sdk.Event{{Type: sdk.EventStart, Model: "glm-4.6"}, {Type: sdk.EventTextDelta, Text: "par"}},
			wantProvider: "glm", wantModel: "glm-4.6",
		},
		{
			name: "a reasoning delta commits",
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{send(sdk.Event{Type: sdk.EventReasoningDelta, Text: "hmm"}), fail(overloaded)}}},
				{name: "ollama"},
			},
			wantTrail: "glm#1 stop transient/529/overloaded committed t=0ms",
			wantErr:   committed, wantClass: sdk.ClassTransient,
			wantEvents:   []sdk.Event{{Type: sdk.EventReasoningDelta, Text: "hmm"}},
			wantProvider: "glm", wantModel: "glm-model",
		},
		{
			name: "a tool call commits and finishes with its reason",
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{
					start("glm-4.6"),
					send(sdk.Event{Type: sdk.EventToolCall, ToolCall: &call, Index: 0}),
					finish(sdk.FinishToolCalls),
				}}},
			},
			wantTrail: "glm#1 ok t=0ms",
			wantEvents: []sdk.Event{
				{Type: sdk.EventStart, Model: "glm-4.6"},
				{Type: sdk.EventToolCall, ToolCall: &call},
				{Type: sdk.EventFinish, Finish: sdk.FinishToolCalls},
			},
			wantProvider: "glm", wantModel: "glm-4.6",
		},
		{
			name:       "a stream ending without finish before content is retried as transient",
			hops:       []hopSpec{{name: "glm", calls: [][]step{{start("glm-4.6")}, local}}},
			wantTrail:  "glm#1 retry transient/incomplete_stream t=0ms, glm#2 ok wait=500ms t=0ms",
			wantEvents: localEvents, wantProvider: "glm", wantModel: "qwen2.5:3b",
			wantSlept: []time.Duration{500 * time.Millisecond},
		},
		{
			name:      "a stream cut after content without finish is a committed failure",
			hops:      []hopSpec{{name: "glm", calls: [][]step{{start("glm-4.6"), text("par")}}}, {name: "ollama"}},
			wantTrail: "glm#1 stop transient/incomplete_stream committed t=0ms",
			wantErr:   committed, wantClass: sdk.ClassTransient,
			wantEvents:   []sdk.Event{{Type: sdk.EventStart, Model: "glm-4.6"}, {Type: sdk.EventTextDelta, Text: "par"}},
			wantProvider: "glm", wantModel: "glm-4.6",
		},
		{
			name:      "finish followed by an error is a failure and the finish never reaches the client",
			hops:      []hopSpec{{name: "glm", calls: [][]step{{text("all"), finish(sdk.FinishStop), fail(classErr(sdk.ClassTransient, 500, 0))}}}},
			wantTrail: "glm#1 stop transient/500 committed t=0ms",
			wantErr:   committed, wantClass: sdk.ClassTransient,
			wantEvents:   []sdk.Event{{Type: sdk.EventTextDelta, Text: "all"}},
			wantProvider: "glm", wantModel: "glm-model",
		},
		{
			name:      "an event after finish is refused and fails the hop",
			hops:      []hopSpec{{name: "glm", calls: [][]step{{text("a"), finish(sdk.FinishStop), text("b")}}}},
			wantTrail: "glm#1 stop permanent/event_after_finish committed t=0ms",
			wantErr:   committed, wantClass: sdk.ClassPermanent,
			wantEvents:   []sdk.Event{{Type: sdk.EventTextDelta, Text: "a"}},
			wantProvider: "glm", wantModel: "glm-model",
		},
		{
			name:   "finish followed by an error before content falls back",
			policy: Policy{Attempts: 1},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{start("glm-4.6"), finish(sdk.FinishStop), fail(classErr(sdk.ClassTransient, 500, 0))}}},
				{name: "ollama", calls: [][]step{local}},
			},
			wantTrail:  "glm#1 fallback transient/500 t=0ms, ollama#1 ok t=0ms",
			wantEvents: localEvents, wantProvider: "ollama", wantModel: "qwen2.5:3b",
		},
		{
			name:      "an empty answer is an answer and its held events are delivered",
			hops:      []hopSpec{{name: "glm", calls: [][]step{{start("glm-4.6"), usage(10, 0), finish(sdk.FinishStop)}}}},
			wantTrail: "glm#1 ok t=0ms",
			wantEvents: []sdk.Event{
				{Type: sdk.EventStart, Model: "glm-4.6"},
				{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(10), OutputTokens: sdk.Tokens(0)}},
				{Type: sdk.EventFinish, Finish: sdk.FinishStop},
			},
			wantProvider: "glm", wantModel: "glm-4.6",
		},
		{
			name:         "the client going away ends the hop as committed",
			client:       &recorder{failAt: 2},
			hops:         []hopSpec{{name: "glm", calls: [][]step{{start("glm-4.6"), text("hi"), finish(sdk.FinishStop)}}}, {name: "ollama"}},
			wantTrail:    "glm#1 stop client_error committed t=0ms",
			wantErr:      committed,
			wantEvents:   []sdk.Event{{Type: sdk.EventStart, Model: "glm-4.6"}},
			wantProvider: "glm", wantModel: "glm-4.6",
		},
	})
}

func TestRunClientErrorCancelsTheHop(t *testing.T) {
	t.Parallel()
	tc := runCase{
		client:    &recorder{failAt: 1},
		hops:      []hopSpec{{name: "glm", calls: [][]step{{text("hi"), finish(sdk.FinishStop)}}}},
		wantTrail: "glm#1 stop client_error committed t=0ms", wantErr: committed,
		wantProvider: "glm", wantModel: "glm-model",
	}
	_, err, provs := tc.run(t)
	if !errors.Is(err, errClientGone) {
		t.Errorf("err = %v, want it to wrap the client's error", err)
	}
	if cause := provs["glm"].causes[0]; !errors.Is(cause, errClientGone) {
		t.Errorf("hop context cause = %v, want the client's error", cause)
	}
}

func TestRunMergesUsageAndReportsIt(t *testing.T) {
	t.Parallel()
	in := send(sdk.Event{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(100), CacheReadTokens: sdk.Tokens(80)}})
	out := send(sdk.Event{Type: sdk.EventUsage, Usage: &sdk.Usage{OutputTokens: sdk.Tokens(7)}})
	tc := runCase{
		hops:         []hopSpec{{name: "glm", calls: [][]step{{start(""), in, text("hi"), out, finish(sdk.FinishLength)}}}},
		wantTrail:    "glm#1 ok t=0ms",
		wantProvider: "glm", wantModel: "glm-model",
	}
	tc.wantEvents = []sdk.Event{
		{Type: sdk.EventStart},
		{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(100), CacheReadTokens: sdk.Tokens(80)}},
		{Type: sdk.EventTextDelta, Text: "hi"},
		{Type: sdk.EventUsage, Usage: &sdk.Usage{OutputTokens: sdk.Tokens(7)}},
		{Type: sdk.EventFinish, Finish: sdk.FinishLength},
	}
	res, _, _ := tc.run(t)
	want := &sdk.Usage{InputTokens: sdk.Tokens(100), OutputTokens: sdk.Tokens(7), CacheReadTokens: sdk.Tokens(80)}
	if diff := cmp.Diff(want, res.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if res.Finish != sdk.FinishLength {
		t.Errorf("finish = %q, want %q", res.Finish, sdk.FinishLength)
	}
}

// TestRunObserverOrder checks what a display sees: the first-content news
// comes before anything reaches the client, and held events follow it.
func TestRunObserverOrder(t *testing.T) {
	t.Parallel()
	log := &eventLog{}
	c := &Chain{
		Name: "default", Clock: newFakeClock(), Policy: Policy{Attempts: 1}, Observer: &watcher{log: log},
		Hops: []Hop{
			{Name: "glm", Provider: &scripted{t: t, name: "glm", calls: [][]step{{start("glm-4.6"), fail(classErr(sdk.ClassTransient, 503, 0))}}}},
			{Name: "ollama", Provider: &scripted{t: t, name: "ollama", calls: [][]step{answer("qwen2.5:3b", "hi")}}},
		},
	}
	if _, err := c.Run(context.Background(), userRequest("hi"), &recorder{log: log}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"turn start default",
		"hop default glm#1 fallback",
		"first content default ollama",
		"client start",
		"client text_delta",
		"client usage",
		"client finish",
		"hop default ollama#1 ok",
		`turn end default provider="ollama" err=false`,
	}
	if diff := cmp.Diff(want, log.get()); diff != "" {
		t.Errorf("observer and client order (-want +got):\n%s", diff)
	}
}

// TestRunRefusesLateEvents: a provider goroutine that outlives its failed
// call cannot write into the answer of the hop that replaced it.
func TestRunRefusesLateEvents(t *testing.T) {
	t.Parallel()
	glm := &scripted{t: t, name: "glm", calls: [][]step{{fail(classErr(sdk.ClassPermanent, 400, 0))}}}
	c := &Chain{Name: "default", Clock: newFakeClock(), Hops: []Hop{
		{Name: "glm", Provider: glm},
		{Name: "ollama", Provider: &scripted{t: t, name: "ollama", calls: [][]step{answer("qwen2.5:3b", "hi")}}},
	}}
	client := &recorder{}
	if _, err := c.Run(context.Background(), userRequest("hi"), client); err != nil {
		t.Fatal(err)
	}
	if err := glm.sinks[0].Send(context.Background(), sdk.Event{Type: sdk.EventTextDelta, Text: "late"}); err == nil {
		t.Error("a late Send was accepted")
	}
	if diff := cmp.Diff(answerEvents("qwen2.5:3b", "hi"), client.got()); diff != "" {
		t.Errorf("client events (-want +got):\n%s", diff)
	}
}
