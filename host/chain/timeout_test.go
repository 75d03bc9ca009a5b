package chain

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

// TestRunTimeouts drives the first-token and idle timers with the fake
// clock: the providers let fake time pass, and mustBeCanceled fails the
// call unless the timer had already cancelled its context.
func TestRunTimeouts(t *testing.T) {
	t.Parallel()
	local := answer("qwen2.5:3b", "hello")
	tests := []struct {
		name string
		tc   func(clk *fakeClock) runCase
		// wantCause is the class the silent hop's context was cancelled
		// with; "" when no hop should have been cancelled.
		wantCause sdk.Class
	}{
		{
			name: "first-token timeout cancels the hop and falls back",
			tc: func(clk *fakeClock) runCase {
				return runCase{
					policy: Policy{Attempts: 1, FirstToken: 10 * time.Second},
					hops: []hopSpec{
						{name: "glm", calls: [][]step{{start("glm-4.6"), advance(clk, 10*time.Second), mustBeCanceled()}}},
						{name: "ollama", calls: [][]step{local}},
					},
					wantTrail:  "glm#1 fallback transient/first_token_timeout t=10000ms, ollama#1 ok t=0ms",
					wantEvents: answerEvents("qwen2.5:3b", "hello"), wantProvider: "ollama", wantModel: "qwen2.5:3b",
				}
			},
			wantCause: sdk.ClassTransient,
		},
		{
			name: "first-token timeout falls back at once: no retry on the same hop",
			tc: func(clk *fakeClock) runCase {
				return runCase{
					policy: Policy{Attempts: 3, FirstToken: 10 * time.Second, Backoff: time.Second},
					hops: []hopSpec{
						{name: "glm", calls: [][]step{{advance(clk, 10*time.Second), mustBeCanceled()}}},
						{name: "ollama", calls: [][]step{local}},
					},
					wantTrail:  "glm#1 fallback transient/first_token_timeout t=10000ms, ollama#1 ok t=0ms",
					wantEvents: answerEvents("qwen2.5:3b", "hello"), wantProvider: "ollama", wantModel: "qwen2.5:3b",
				}
			},
			wantCause: sdk.ClassTransient,
		},
		{
			name: "a hop's own first-token bound replaces the policy's",
			tc: func(clk *fakeClock) runCase {
				return runCase{
					policy: Policy{FirstToken: 10 * time.Second},
					hops: []hopSpec{
						{name: "glm", firstToken: 3 * time.Minute, calls: [][]step{{advance(clk, 2*time.Minute), text("slow"), finish(sdk.FinishStop)}}},
						{name: "ollama"},
					},
					wantTrail:    "glm#1 ok t=120000ms",
					wantEvents:   []sdk.Event{{Type: sdk.EventTextDelta, Text: "slow"}, {Type: sdk.EventFinish, Finish: sdk.FinishStop}},
					wantProvider: "glm", wantModel: "glm-model",
				}
			},
		},
		{
			name: "content stops the first-token timer and idle counts gaps, not the total",
			tc: func(clk *fakeClock) runCase {
				return runCase{
					policy: Policy{FirstToken: 10 * time.Second, Idle: 30 * time.Second},
					hops: []hopSpec{{name: "glm", calls: [][]step{{
						advance(clk, 9*time.Second), text("a"),
						advance(clk, 20*time.Second), text("b"),
						advance(clk, 20*time.Second), text("c"),
						advance(clk, 29*time.Second), finish(sdk.FinishStop),
					}}}},
					wantTrail: "glm#1 ok t=78000ms",
					wantEvents: []sdk.Event{
						{Type: sdk.EventTextDelta, Text: "a"}, {Type: sdk.EventTextDelta, Text: "b"},
						{Type: sdk.EventTextDelta, Text: "c"}, {Type: sdk.EventFinish, Finish: sdk.FinishStop},
					},
					wantProvider: "glm", wantModel: "glm-model",
				}
			},
		},
		{
			name: "idle timeout mid-stream is a committed failure",
			tc: func(clk *fakeClock) runCase {
				return runCase{
					policy: Policy{Idle: 30 * time.Second},
					hops: []hopSpec{
						{name: "glm", calls: [][]step{{start("glm-4.6"), text("a"), advance(clk, 30*time.Second), mustBeCanceled()}}},
						{name: "ollama"},
					},
					wantTrail: "glm#1 stop transient/idle_timeout committed t=30000ms",
					wantErr:   committed, wantClass: sdk.ClassTransient,
					wantEvents:   []sdk.Event{{Type: sdk.EventStart, Model: "glm-4.6"}, {Type: sdk.EventTextDelta, Text: "a"}},
					wantProvider: "glm", wantModel: "glm-4.6",
				}
			},
			wantCause: sdk.ClassTransient,
		},
		{
			name: "time spent waiting on a slow client is not idle",
			tc: func(clk *fakeClock) runCase {
				slow := &recorder{onSend: func(ev sdk.Event) {
					if ev.Type == sdk.EventTextDelta {
						clk.Advance(2 * time.Minute)
					}
				}}
				return runCase{
					policy:    Policy{Idle: 30 * time.Second},
					client:    slow,
					hops:      []hopSpec{{name: "glm", calls: [][]step{{text("a"), text("b"), finish(sdk.FinishStop)}}}},
					wantTrail: "glm#1 ok t=240000ms",
					wantEvents: []sdk.Event{
						{Type: sdk.EventTextDelta, Text: "a"}, {Type: sdk.EventTextDelta, Text: "b"},
						{Type: sdk.EventFinish, Finish: sdk.FinishStop},
					},
					wantProvider: "glm", wantModel: "glm-model",
				}
			},
		},
		{
			name: "negative timeouts are off",
			tc: func(clk *fakeClock) runCase {
				return runCase{
					policy: Policy{FirstToken: -1, Idle: -1},
					hops: []hopSpec{{name: "glm", calls: [][]step{{
						advance(clk, time.Hour), text("a"), advance(clk, time.Hour), finish(sdk.FinishStop),
					}}}},
					wantTrail:    "glm#1 ok t=7200000ms",
					wantEvents:   []sdk.Event{{Type: sdk.EventTextDelta, Text: "a"}, {Type: sdk.EventFinish, Finish: sdk.FinishStop}},
					wantProvider: "glm", wantModel: "glm-model",
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := newFakeClock()
			tc := tt.tc(clk)
			tc.clock = clk
			_, provs, _ := tc.run(t)
			cause := provs["glm"].causes[0]
			if tt.wantCause == "" {
				if cause != nil {
					t.Errorf("glm was cancelled: %v", cause)
				}
				return
			}
			if !errors.Is(cause, sdk.ErrTimeout) || sdk.ClassOf(cause) != tt.wantCause {
				t.Errorf("glm's context ended with %v, want a %s timeout", cause, tt.wantCause)
			}
		})
	}
}

// TestRunTimeoutsRealClock proves the system clock path: real 1ms timers
// and providers that block until cancelled. Nothing here measures time.
func TestRunTimeoutsRealClock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		policy      Policy
		glm         []step
		wantErr     errKind
		wantOutcome Outcome
		wantCode    string
	}{
		{
			name:        "first token",
			policy:      Policy{Attempts: 1, FirstToken: time.Millisecond},
			glm:         []step{start("glm-4.6"), blockUntilCanceled()},
			wantErr:     noError,
			wantOutcome: OutcomeFallback, wantCode: CodeFirstTokenTimeout,
		},
		{
			name:        "idle",
			policy:      Policy{Attempts: 1, Idle: time.Millisecond},
			glm:         []step{text("a"), blockUntilCanceled()},
			wantErr:     committed,
			wantOutcome: OutcomeStop, wantCode: CodeIdleTimeout,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			glm := &scripted{t: t, name: "glm", calls: [][]step{tc.glm}}
			ollama := &scripted{t: t, name: "ollama", calls: [][]step{answer("qwen2.5:3b", "hi")}}
			c := &Chain{Name: "default", Policy: tc.policy, Hops: []Hop{{Name: "glm", Provider: glm}, {Name: "ollama", Provider: ollama}}}
			res, err := c.Run(context.Background(), userRequest("hi"), &recorder{}, nil)
			if got := kindOf(err); got != tc.wantErr {
				t.Fatalf("err = %v, want %s", err, tc.wantErr)
			}
			if got := res.Trail[0]; got.Outcome != tc.wantOutcome || got.Code != tc.wantCode || got.Class != sdk.ClassTransient {
				t.Errorf("glm attempt = %+v, want outcome %s, transient/%s", got, tc.wantOutcome, tc.wantCode)
			}
			if !errors.Is(glm.causes[0], sdk.ErrTimeout) {
				t.Errorf("glm's context ended with %v, want a timeout", glm.causes[0])
			}
		})
	}
}

// TestRunCallerCancel: the caller's context ending stops the chain at once;
// no later hop is tried and nothing is retried.
func TestRunCallerCancel(t *testing.T) {
	t.Parallel()
	cancelNow := func(cancel context.CancelFunc) step {
		return func(context.Context, *sdk.Request, sdk.Sink) error { cancel(); return nil }
	}
	tests := []struct {
		name      string
		glm       func(cancel context.CancelFunc) [][]step
		onHop     func(cancel context.CancelFunc) func(Attempt)
		wantTrail string
		wantErr   errKind
		wantSlept []time.Duration
	}{
		{
			name: "while a hop is running",
			glm: func(cancel context.CancelFunc) [][]step {
				return [][]step{{start("glm-4.6"), cancelNow(cancel), mustBeCanceled()}}
			},
			wantTrail: "glm#1 stop canceled t=0ms",
			wantErr:   canceled,
		},
		{
			name: "even when the hop reports a transient failure",
			glm: func(cancel context.CancelFunc) [][]step {
				return [][]step{{cancelNow(cancel), fail(classErr(sdk.ClassTransient, 503, 0))}}
			},
			wantTrail: "glm#1 stop canceled t=0ms",
			wantErr:   canceled,
		},
		{
			name: "during the wait before a retry",
			glm: func(context.CancelFunc) [][]step {
				return [][]step{{fail(classErr(sdk.ClassTransient, 429, 5*time.Second))}}
			},
			onHop: func(cancel context.CancelFunc) func(Attempt) {
				return func(a Attempt) {
					if a.Outcome == OutcomeRetry {
						cancel()
					}
				}
			},
			wantTrail: "glm#1 retry transient/429 hint=5000ms t=0ms",
			wantErr:   canceled,
		},
		{
			name: "after content reached the client",
			glm: func(cancel context.CancelFunc) [][]step {
				return [][]step{{text("a"), cancelNow(cancel), mustBeCanceled()}}
			},
			wantTrail: "glm#1 stop canceled committed t=0ms",
			wantErr:   committed,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			clk := newFakeClock()
			glm := &scripted{t: t, name: "glm", calls: tc.glm(cancel)}
			ollama := &scripted{t: t, name: "ollama"}
			w := &watcher{log: &eventLog{}}
			if tc.onHop != nil {
				w.onHop = tc.onHop(cancel)
			}
			c := &Chain{Name: "default", Clock: clk, Observer: w, Hops: []Hop{{Name: "glm", Provider: glm}, {Name: "ollama", Provider: ollama}}}
			res, err := c.Run(ctx, userRequest("hi"), &recorder{}, nil)
			if got := kindOf(err); got != tc.wantErr || !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want %s wrapping context.Canceled", err, tc.wantErr)
			}
			if got := res.Trail.String(); got != tc.wantTrail {
				t.Errorf("trail:\n got %s\nwant %s", got, tc.wantTrail)
			}
			if got := glm.count() + ollama.count(); got != 1 {
				t.Errorf("%d provider calls, want 1", got)
			}
			if diff := cmp.Diff(tc.wantSlept, clk.sleeps()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}
