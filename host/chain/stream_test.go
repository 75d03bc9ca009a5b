package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
	_, provs, err := tc.run(t)
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
	if _, err := c.Run(context.Background(), userRequest("hi"), &recorder{log: log}, nil); err != nil {
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

// TestRunCommitCallback: the commit callback names the answering hop once,
// after the observer's OnFirstContent and before its first content reaches
// the client, with the model its EventStart reported (else the hop's) and
// the trail of the attempts before it; a hop that fails before content, and
// an answer without content, never commit.
func TestRunCommitCallback(t *testing.T) {
	t.Parallel()
	overloaded := fail(classErr(sdk.ClassTransient, 503, 0))
	tests := []struct {
		name  string
		hops  []Hop
		want  []string
		fails bool
	}{{
		name: "the hop that answers, after a fallback",
		hops: []Hop{
			{Name: "glm", Model: "glm-4.6", Provider: &scripted{t: t, name: "glm", calls: [][]step{{start("glm-4.6"), overloaded}}}},
			{Name: "ollama", Model: "qwen2.5", Provider: &scripted{t: t, name: "ollama", calls: [][]step{answer("qwen2.5:3b", "hi")}}},
		},
		want: []string{
			"first content default ollama",
			`commit ollama "qwen2.5:3b" trail="glm#1 fallback transient/503 t=0ms"`,
			"client start",
			"client text_delta",
			"client usage",
			"client finish",
		},
	}, {
		name: "no EventStart: the hop's own model",
		hops: []Hop{{Name: "glm", Model: "glm-4.6", Provider: &scripted{t: t, name: "glm", calls: [][]step{{text("hi"), overloaded}}}}},
		want: []string{
			"first content default glm",
			`commit glm "glm-4.6" trail=""`,
			"client text_delta",
		},
		fails: true,
	}, {
		name: "an answer without content",
		hops: []Hop{{Name: "glm", Provider: &scripted{t: t, name: "glm", calls: [][]step{{start("glm-4.6"), finish(sdk.FinishStop)}}}}},
		want: []string{"client start", "client finish"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			log := &eventLog{}
			w := &watcher{log: &eventLog{}}
			c := &Chain{Name: "default", Clock: newFakeClock(), Policy: Policy{Attempts: 1}, Observer: firstContentTo{w, log}, Hops: tt.hops}
			commit := func(cm Commit) {
				log.add(fmt.Sprintf("commit %s %q trail=%q", cm.Provider, cm.Model, cm.Trail.String()))
			}
			_, err := c.Run(context.Background(), userRequest("hi"), &recorder{log: log}, commit)
			if (err != nil) != tt.fails {
				t.Fatalf("Run: %v", err)
			}
			if diff := cmp.Diff(tt.want, log.get()); diff != "" {
				t.Errorf("commit and client order (-want +got):\n%s", diff)
			}
		})
	}
}

// firstContentTo logs only OnFirstContent to log, the rest to its watcher.
type firstContentTo struct {
	*watcher
	log *eventLog
}

func (f firstContentTo) OnFirstContent(chain, provider string) {
	f.log.add("first content " + chain + " " + provider)
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
	if _, err := c.Run(context.Background(), userRequest("hi"), client, nil); err != nil {
		t.Fatal(err)
	}
	if err := glm.sinks[0].Send(context.Background(), sdk.Event{Type: sdk.EventTextDelta, Text: "late"}); err == nil {
		t.Error("a late Send was accepted")
	}
	if diff := cmp.Diff(answerEvents("qwen2.5:3b", "hi"), client.got()); diff != "" {
		t.Errorf("client events (-want +got):\n%s", diff)
	}
}

// TestRunBatches: events that arrive together are taken as one by one (the
// start held until content, the finish until Generate returns, nothing
// after the finish, a buffered answer whole at the end) and what they
// forward reaches the client as one batch.
func TestRunBatches(t *testing.T) {
	t.Parallel()
	startEv := sdk.Event{Type: sdk.EventStart, Model: "glm-4.6"}
	a, b := sdk.Event{Type: sdk.EventTextDelta, Text: "a"}, sdk.Event{Type: sdk.EventTextDelta, Text: "b"}
	use := sdk.Event{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(3)}}
	fin := sdk.Event{Type: sdk.EventFinish, Finish: sdk.FinishStop}
	for _, c := range []struct {
		runCase
		wantBatches []int
	}{
		{
			runCase: runCase{
				name:       "a streamed answer in two messages",
				hops:       []hopSpec{{name: "glm", calls: [][]step{{batch(startEv, a, b), batch(use, fin)}}}},
				wantTrail:  "glm#1 ok t=0ms",
				wantEvents: []sdk.Event{startEv, a, b, use, fin}, wantProvider: "glm", wantModel: "glm-4.6",
			},
			wantBatches: []int{3, 1}, // the finish waits for Generate's return
		},
		{
			runCase: runCase{
				name:       "a batch of only held events forwards nothing",
				hops:       []hopSpec{{name: "glm", calls: [][]step{{batch(startEv, use), batch(a, fin)}}}},
				wantTrail:  "glm#1 ok t=0ms",
				wantEvents: []sdk.Event{startEv, use, a, fin}, wantProvider: "glm", wantModel: "glm-4.6",
			},
			wantBatches: []int{3},
		},
		{
			runCase: runCase{
				name:      "an event after the finish is refused; what came before it reached the client",
				hops:      []hopSpec{{name: "glm", calls: [][]step{{batch(startEv, a, fin, b)}}}},
				wantTrail: "glm#1 stop permanent/event_after_finish committed t=0ms",
				wantErr:   committed, wantClass: sdk.ClassPermanent,
				wantEvents: []sdk.Event{startEv, a}, wantProvider: "glm", wantModel: "glm-4.6",
			},
			wantBatches: []int{2},
		},
		{
			runCase: runCase{
				name:       "a buffered answer goes out whole at the end",
				opts:       []RunOption{Buffered(0)},
				hops:       []hopSpec{{name: "glm", calls: [][]step{{batch(startEv, a, b), batch(use, fin)}}}},
				wantTrail:  "glm#1 ok t=0ms",
				wantEvents: []sdk.Event{startEv, a, b, use, fin}, wantProvider: "glm", wantModel: "glm-4.6",
			},
		},
		{
			runCase: runCase{
				name:       "a client that fails within a batch is a committed failure",
				client:     &recorder{failAt: 2},
				hops:       []hopSpec{{name: "glm", calls: [][]step{{batch(startEv, a, b)}}}, {name: "ollama"}},
				wantTrail:  "glm#1 stop client_error committed t=0ms",
				wantErr:    committed,
				wantEvents: []sdk.Event{startEv}, wantProvider: "glm", wantModel: "glm-4.6",
			},
			wantBatches: []int{3},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.client == nil {
				c.client = &recorder{}
			}
			c.run(t)
			if diff := cmp.Diff(c.wantBatches, c.client.gotBatches(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("batches (-want +got):\n%s", diff)
			}
		})
	}
}
