package chain

import (
	"context"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

// TestRunFailoverRules covers the rules of issue 12: a refusal is one
// attempt, a timeout without an upstream status moves on at once, and a
// buffered Run commits nothing until the answer is complete.
func TestRunFailoverRules(t *testing.T) {
	t.Parallel()
	local := answer("qwen2.5:3b", "hello")
	localEvents := answerEvents("qwen2.5:3b", "hello")
	egressTimeout := &sdk.Error{Class: sdk.ClassTransient, Code: sdk.ErrTimeout.Code, Message: "egress: upstream timed out"}
	gatewayTimeout := &sdk.Error{Class: sdk.ClassTransient, Code: sdk.ErrTimeout.Code, Status: 504, Message: "upstream 504"}
	cut := []step{start("glm-4.6"), text("half an "), fail(sdk.ErrCutStream.Newf("stream ended early"))}
	malformed := []step{start("glm-4.6"), text("half an "), fail(&sdk.Error{Class: sdk.ClassTransient, Message: "chunk is not JSON"})}

	runAll(t, []runCase{
		{
			name:   "content_filter is one attempt and no fallback, whatever the retry budget",
			policy: Policy{Attempts: 3},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{fail(classErr(sdk.ClassContentFilter, 400, 0))}}},
				{name: "ollama"},
			},
			wantTrail: "glm#1 stop content_filter/400 t=0ms",
			wantErr:   exhausted, wantClass: sdk.ClassContentFilter,
		},
		{
			name:   "content_filter on a buffered Run stops the same way",
			opts:   []RunOption{Buffered(0)},
			policy: Policy{Attempts: 3},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{start("glm-4.6"), fail(classErr(sdk.ClassContentFilter, 400, 0))}}},
				{name: "ollama"},
			},
			wantTrail: "glm#1 stop content_filter/400 t=0ms",
			wantErr:   exhausted, wantClass: sdk.ClassContentFilter,
		},
		{
			name:   "an egress timeout without a status falls back at once",
			policy: Policy{Attempts: 3},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{fail(egressTimeout)}}},
				{name: "ollama", calls: [][]step{local}},
			},
			wantTrail:  "glm#1 fallback transient/timeout t=0ms, ollama#1 ok t=0ms",
			wantEvents: localEvents, wantProvider: "ollama", wantModel: "qwen2.5:3b",
		},
		{
			name: "a timeout the upstream answered with a status is retried",
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{fail(gatewayTimeout)}, local}},
				{name: "ollama"},
			},
			wantTrail:  "glm#1 retry transient/504/timeout t=0ms, glm#2 ok wait=500ms t=0ms",
			wantEvents: localEvents, wantProvider: "glm", wantModel: "qwen2.5:3b",
			wantSlept: []time.Duration{500 * time.Millisecond},
		},
		{
			name: "buffered: a stream cut after some tokens is retried, and the client sees only the whole answer",
			opts: []RunOption{Buffered(0)},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{cut, local}},
				{name: "ollama"},
			},
			wantTrail:  "glm#1 retry transient/cut_stream t=0ms, glm#2 ok wait=500ms t=0ms",
			wantEvents: localEvents, wantProvider: "glm", wantModel: "qwen2.5:3b",
			wantSlept: []time.Duration{500 * time.Millisecond},
		},
		{
			name: "buffered: a cut on every try falls back like a failure before the first token",
			opts: []RunOption{Buffered(0)},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{cut, malformed}},
				{name: "ollama", calls: [][]step{local}},
			},
			wantTrail:  "glm#1 retry transient/cut_stream t=0ms, glm#2 fallback transient wait=500ms t=0ms, ollama#1 ok t=0ms",
			wantEvents: localEvents, wantProvider: "ollama", wantModel: "qwen2.5:3b",
			wantSlept: []time.Duration{500 * time.Millisecond},
		},
		{
			name: "buffered: a stream that ends without its finish is retried",
			opts: []RunOption{Buffered(0)},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{text("half")}, local}},
			},
			wantTrail:  "glm#1 retry transient/incomplete_stream t=0ms, glm#2 ok wait=500ms t=0ms",
			wantEvents: localEvents, wantProvider: "glm", wantModel: "qwen2.5:3b",
			wantSlept: []time.Duration{500 * time.Millisecond},
		},
		{
			name: "streamed: the same cut after content is a committed failure",
			hops: []hopSpec{
				{name: "glm", calls: [][]step{cut}},
				{name: "ollama"},
			},
			wantTrail: "glm#1 stop transient/cut_stream committed t=0ms",
			wantErr:   committed, wantClass: sdk.ClassTransient,
			wantEvents:   []sdk.Event{{Type: sdk.EventStart, Model: "glm-4.6"}, {Type: sdk.EventTextDelta, Text: "half an "}},
			wantProvider: "glm", wantModel: "glm-4.6",
		},
		{
			name:   "buffered: a refusal after content is still an answer",
			opts:   []RunOption{Buffered(0)},
			policy: Policy{AllowContentFilterFallback: true},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{text("I can"), finish(sdk.FinishContentFilter)}}},
				{name: "ollama"},
			},
			wantTrail:    "glm#1 ok t=0ms",
			wantEvents:   []sdk.Event{{Type: sdk.EventTextDelta, Text: "I can"}, {Type: sdk.EventFinish, Finish: sdk.FinishContentFilter}},
			wantProvider: "glm", wantModel: "glm-model",
		},
		{
			name:   "buffered: a client that refuses the whole answer is a committed failure",
			opts:   []RunOption{Buffered(0)},
			client: &recorder{failAt: 2},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{local}},
				{name: "ollama"},
			},
			wantTrail:    "glm#1 stop client_error committed t=0ms",
			wantErr:      committed,
			wantEvents:   []sdk.Event{{Type: sdk.EventStart, Model: "qwen2.5:3b"}},
			wantProvider: "glm", wantModel: "qwen2.5:3b",
		},
		{
			name: "buffered: an answer that outgrows the buffer commits there and flows on",
			opts: []RunOption{Buffered(8)},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{start("glm-4.6"), text("12345"), text("6789"), text("0"), fail(sdk.ErrCutStream.Newf("cut"))}}},
				{name: "ollama"},
			},
			wantTrail: "glm#1 stop transient/cut_stream committed t=0ms",
			wantErr:   committed, wantClass: sdk.ClassTransient,
			wantEvents: []sdk.Event{
				{Type: sdk.EventStart, Model: "glm-4.6"}, {Type: sdk.EventTextDelta, Text: "12345"},
				{Type: sdk.EventTextDelta, Text: "6789"}, {Type: sdk.EventTextDelta, Text: "0"},
			},
			wantProvider: "glm", wantModel: "glm-4.6",
		},
		{
			name: "buffered: an answer within the buffer is held whole",
			opts: []RunOption{Buffered(8)},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{text("12345678"), fail(sdk.ErrCutStream.Newf("cut"))}, local}},
			},
			wantTrail:  "glm#1 retry transient/cut_stream t=0ms, glm#2 ok wait=500ms t=0ms",
			wantEvents: localEvents, wantProvider: "glm", wantModel: "qwen2.5:3b",
			wantSlept: []time.Duration{500 * time.Millisecond},
		},
		{
			name:       "jitter spreads a backoff within its bound",
			rand:       fixedRand(0.999),
			policy:     Policy{Backoff: time.Second},
			hops:       []hopSpec{{name: "glm", calls: [][]step{{fail(classErr(sdk.ClassTransient, 503, 0))}, local}}},
			wantTrail:  "glm#1 retry transient/503 t=0ms, glm#2 ok wait=1200ms t=0ms",
			wantEvents: localEvents, wantProvider: "glm", wantModel: "qwen2.5:3b",
			wantSlept: []time.Duration{1199600000},
		},
		{
			name:       "jitter never waits less than a Retry-After hint",
			rand:       fixedRand(0),
			hops:       []hopSpec{{name: "glm", calls: [][]step{{fail(classErr(sdk.ClassTransient, 429, 2*time.Second))}, local}}},
			wantTrail:  "glm#1 retry transient/429 hint=2000ms t=0ms, glm#2 ok wait=2000ms t=0ms",
			wantEvents: localEvents, wantProvider: "glm", wantModel: "qwen2.5:3b",
			wantSlept: []time.Duration{2 * time.Second},
		},
	})
}

// TestRunBufferedTimeouts: on a buffered Run the first-token timer stops at
// the first token and the idle timer bounds the rest, as for a stream; a
// stall after some tokens falls back at once, with nothing committed.
func TestRunBufferedTimeouts(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	tc := runCase{
		clock:  clk,
		opts:   []RunOption{Buffered(0)},
		policy: Policy{Attempts: 3, FirstToken: 10 * time.Second, Idle: 30 * time.Second},
		hops: []hopSpec{
			{name: "glm", calls: [][]step{{
				advance(clk, 9*time.Second), text("a"), advance(clk, 20*time.Second), text("b"),
				advance(clk, 30*time.Second), mustBeCanceled(),
			}}},
			{name: "ollama", calls: [][]step{answer("qwen2.5:3b", "hello")}},
		},
		wantTrail:  "glm#1 fallback transient/idle_timeout t=59000ms, ollama#1 ok t=0ms",
		wantEvents: answerEvents("qwen2.5:3b", "hello"), wantProvider: "ollama", wantModel: "qwen2.5:3b",
	}
	tc.run(t)
}

// TestRunBufferedCommit: a buffered Run names its answering hop once, after
// the failed attempts, with their trail, before the first event reaches the
// client.
func TestRunBufferedCommit(t *testing.T) {
	t.Parallel()
	log := &eventLog{}
	glm := &scripted{t: t, name: "glm", calls: [][]step{{text("half"), fail(sdk.ErrCutStream.Newf("cut"))}}}
	ollama := &scripted{t: t, name: "ollama", calls: [][]step{answer("qwen2.5:3b", "hello")}}
	c := &Chain{
		Name: "default", Clock: newFakeClock(), Policy: Policy{Attempts: 1}, Observer: &watcher{log: log},
		Hops: []Hop{{Name: "glm", Provider: glm}, {Name: "ollama", Provider: ollama}},
	}
	var commits []string
	_, err := c.Run(context.Background(), userRequest("hi"), &recorder{log: log}, func(cm Commit) {
		commits = append(commits, cm.Provider+" after "+cm.Trail.String())
		log.add("commit " + cm.Provider)
	}, Buffered(0))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ollama after glm#1 fallback transient/cut_stream t=0ms"}, commits); diff != "" {
		t.Errorf("commits (-want +got):\n%s", diff)
	}
	want := []string{
		"turn start default",
		"hop default glm#1 fallback",
		"first content default ollama",
		"commit ollama",
		"client start", "client text_delta", "client usage", "client finish",
		"hop default ollama#1 ok",
		"turn end default provider=\"ollama\" err=false",
	}
	if diff := cmp.Diff(want, log.get()); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// TestRunNothingLatched: a primary that failed for several requests in a
// row is tried first again, and answers, on the first request after it
// recovers.
func TestRunNothingLatched(t *testing.T) {
	t.Parallel()
	const outage = 5
	down := []step{fail(classErr(sdk.ClassTransient, 503, 0))}
	var primaryCalls [][]step
	for range outage {
		primaryCalls = append(primaryCalls, down, down)
	}
	primaryCalls = append(primaryCalls, answer("glm-4.6", "back"))
	var backupCalls [][]step
	for range outage {
		backupCalls = append(backupCalls, answer("qwen2.5:3b", "standby"))
	}
	primary := &scripted{t: t, name: "glm", calls: primaryCalls}
	backup := &scripted{t: t, name: "ollama", calls: backupCalls}
	c := &Chain{Name: "default", Clock: newFakeClock(), Rand: fixedRand(0.5), Hops: []Hop{{Name: "glm", Provider: primary}, {Name: "ollama", Provider: backup}}}
	for i := range outage + 1 {
		res, err := c.Run(context.Background(), userRequest("hi"), &recorder{}, nil)
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		want := "glm#1 retry transient/503 t=0ms, glm#2 fallback transient/503 wait=500ms t=0ms, ollama#1 ok t=0ms"
		if i == outage {
			want = "glm#1 ok t=0ms"
		}
		if got := res.Trail.String(); got != want {
			t.Errorf("request %d: trail %s, want %s", i+1, got, want)
		}
	}
	if primary.count() != 2*outage+1 || backup.count() != outage {
		t.Errorf("calls: primary %d, backup %d; want %d and %d", primary.count(), backup.count(), 2*outage+1, outage)
	}
}

func TestJitterBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		wait   time.Duration
		hinted bool
		u      float64
		limit  time.Duration
		want   time.Duration
	}{
		{"backoff, lowest draw", time.Second, false, 0, 20 * time.Second, 800 * time.Millisecond},
		{"backoff, middle draw", time.Second, false, 0.5, 20 * time.Second, time.Second},
		{"backoff, highest draw", time.Second, false, 0.9999999, 20 * time.Second, 1199999960},
		{"backoff at the cap never exceeds it", 20 * time.Second, false, 0.9, 20 * time.Second, 20 * time.Second},
		{"hint, lowest draw is the hint", 2 * time.Second, true, 0, 20 * time.Second, 2 * time.Second},
		{"hint, highest draw", 2 * time.Second, true, 0.9999999, 20 * time.Second, 2399999960},
		{"hint at the cap stays at the hint", 20 * time.Second, true, 0.9, 20 * time.Second, 20 * time.Second},
		{"no wait stays none", 0, false, 0.9, 20 * time.Second, 0},
	} {
		if got := jitter(tc.wait, tc.hinted, tc.u, tc.limit); got != tc.want {
			t.Errorf("%s: jitter(%s, hinted=%v, %v, %s) = %s, want %s", tc.name, tc.wait, tc.hinted, tc.u, tc.limit, got, tc.want)
		}
	}
}
