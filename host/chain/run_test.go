package chain

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// hopSpec is one hop of a test chain: calls[n] scripts its n-th call, and
// the test fails unless every scripted call, and no other, was made.
type hopSpec struct {
	name       string
	window     int64
	firstToken time.Duration // Hop.FirstToken
	calls      [][]step
}

type errKind int

const (
	noError errKind = iota
	exhausted
	committed
	canceled
)

func (k errKind) String() string {
	return [...]string{"no error", "*ExhaustedError", "*CommittedError", "context canceled"}[k]
}

// runCase is one Run of a chain built from hops, with a fake clock, a
// recording client sink and a plain one-message request.
type runCase struct {
	name   string
	policy Policy
	clock  *fakeClock // nil: a fresh one
	hops   []hopSpec
	client *recorder // nil: a fresh one
	rand   Rand      // nil: fixedRand(0.5), which leaves a backoff without a hint unjittered
	opts   []RunOption

	wantTrail    string // Trail.String(): every attempt's outcome, class, wait and latency
	wantErr      errKind
	wantClass    sdk.Class   // sdk.ClassOf(err)
	wantEvents   []sdk.Event // what the client received, in order
	wantProvider string
	wantModel    string
	wantSlept    []time.Duration
}

func (tc runCase) run(t *testing.T) (*Result, map[string]*scripted, error) {
	t.Helper()
	clk := tc.clock
	if clk == nil {
		clk = newFakeClock()
	}
	client := tc.client
	if client == nil {
		client = &recorder{}
	}
	rnd := tc.rand
	if rnd == nil {
		rnd = fixedRand(0.5)
	}
	c := &Chain{Name: "default", Policy: tc.policy, Clock: clk, Rand: rnd}
	var provs []*scripted
	byName := map[string]*scripted{}
	for _, h := range tc.hops {
		p := &scripted{t: t, name: h.name, calls: h.calls}
		provs = append(provs, p)
		byName[h.name] = p
		c.Hops = append(c.Hops, Hop{Name: h.name, Provider: p, Model: h.name + "-model", ContextWindow: h.window, FirstToken: h.firstToken})
	}

	res, err := c.Run(context.Background(), userRequest("hello"), client, nil, tc.opts...)

	if res == nil {
		t.Fatal("Run returned a nil Result")
	}
	if got := res.Trail.String(); got != tc.wantTrail {
		t.Errorf("trail:\n got %s\nwant %s", got, tc.wantTrail)
	}
	if got := kindOf(err); got != tc.wantErr {
		t.Errorf("error = %v (%s), want %s", err, got, tc.wantErr)
	}
	if got := sdk.ClassOf(err); got != tc.wantClass {
		t.Errorf("class of %v = %q, want %q", err, got, tc.wantClass)
	}
	if tc.wantClass != "" && !errors.Is(err, &sdk.Error{Class: tc.wantClass}) {
		t.Errorf("errors.Is(%v, class %s) = false", err, tc.wantClass)
	}
	if diff := cmp.Diff(tc.wantEvents, client.got(), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("client events (-want +got):\n%s", diff)
	}
	if res.Provider != tc.wantProvider || res.Model != tc.wantModel {
		t.Errorf("answered by %q model %q, want %q model %q", res.Provider, res.Model, tc.wantProvider, tc.wantModel)
	}
	if diff := cmp.Diff(tc.wantSlept, clk.sleeps(), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	for i, p := range provs {
		if got, want := p.count(), len(tc.hops[i].calls); got != want {
			t.Errorf("%s called %d times, want %d", p.name, got, want)
		}
	}
	var ee *ExhaustedError
	if errors.As(err, &ee) && ee.Trail.String() != res.Trail.String() {
		t.Errorf("ExhaustedError trail %s differs from Result trail %s", ee.Trail, res.Trail)
	}
	return res, byName, err
}

func kindOf(err error) errKind {
	var ee *ExhaustedError
	var ce *CommittedError
	switch {
	case err == nil:
		return noError
	case errors.As(err, &ce):
		return committed
	case errors.As(err, &ee):
		return exhausted
	case errors.Is(err, context.Canceled):
		return canceled
	}
	return -1
}

func runAll(t *testing.T, cases []runCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t)
		})
	}
}

// TestRunRetryAndFallback covers what the chain does for each error class.
func TestRunRetryAndFallback(t *testing.T) {
	t.Parallel()
	hi := answer("glm-4.6", "hi")
	hiEvents := answerEvents("glm-4.6", "hi")
	local := answer("qwen2.5:3b", "hello")
	localEvents := answerEvents("qwen2.5:3b", "hello")
	overloaded := &sdk.Error{Class: sdk.ClassTransient, Status: 529, Code: "overloaded", Message: "overloaded"}

	runAll(t, []runCase{
		{
			name:       "first hop answers",
			hops:       []hopSpec{{name: "glm", calls: [][]step{hi}}, {name: "ollama"}},
			wantTrail:  "glm#1 ok t=0ms",
			wantEvents: hiEvents, wantProvider: "glm", wantModel: "glm-4.6",
		},
		{
			name:       "500 then success retries the same hop after the default backoff",
			hops:       []hopSpec{{name: "glm", calls: [][]step{{fail(classErr(sdk.ClassTransient, 500, 0))}, hi}}, {name: "ollama"}},
			wantTrail:  "glm#1 retry transient/500 t=0ms, glm#2 ok wait=500ms t=0ms",
			wantEvents: hiEvents, wantProvider: "glm", wantModel: "glm-4.6",
			wantSlept: []time.Duration{500 * time.Millisecond},
		},
		{
			name:       "429 with Retry-After waits as asked",
			hops:       []hopSpec{{name: "glm", calls: [][]step{{fail(classErr(sdk.ClassTransient, 429, 3*time.Second))}, hi}}},
			wantTrail:  "glm#1 retry transient/429 hint=3000ms t=0ms, glm#2 ok wait=3300ms t=0ms",
			wantEvents: hiEvents, wantProvider: "glm", wantModel: "glm-4.6",
			wantSlept: []time.Duration{3300 * time.Millisecond}, // the hint is a floor; jitter only adds
		},
		{
			name:   "Retry-After over the cap falls back without waiting",
			policy: Policy{MaxRetryAfter: 20 * time.Second},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{fail(classErr(sdk.ClassTransient, 429, time.Minute))}}},
				{name: "ollama", calls: [][]step{local}},
			},
			wantTrail:  "glm#1 fallback transient/429 hint=60000ms t=0ms, ollama#1 ok t=0ms",
			wantEvents: localEvents, wantProvider: "ollama", wantModel: "qwen2.5:3b",
		},
		{
			name:   "a negative cap never waits for a hint",
			policy: Policy{MaxRetryAfter: -1},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{fail(classErr(sdk.ClassTransient, 429, time.Second))}}},
				{name: "ollama", calls: [][]step{local}},
			},
			wantTrail:  "glm#1 fallback transient/429 hint=1000ms t=0ms, ollama#1 ok t=0ms",
			wantEvents: localEvents, wantProvider: "ollama", wantModel: "qwen2.5:3b",
		},
		{
			name: "529 overloaded is transient: one retry, then fall back",
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{fail(overloaded)}, {fail(overloaded)}}},
				{name: "ollama", calls: [][]step{local}},
			},
			wantTrail:  "glm#1 retry transient/529/overloaded t=0ms, glm#2 fallback transient/529/overloaded wait=500ms t=0ms, ollama#1 ok t=0ms",
			wantEvents: localEvents, wantProvider: "ollama", wantModel: "qwen2.5:3b",
			wantSlept: []time.Duration{500 * time.Millisecond},
		},
		{
			name:   "backoff doubles with each retry",
			policy: Policy{Attempts: 3, Backoff: 100 * time.Millisecond},
			hops: []hopSpec{{name: "glm", calls: [][]step{
				{fail(classErr(sdk.ClassTransient, 500, 0))},
				{fail(classErr(sdk.ClassTransient, 502, 0))},
				hi,
			}}},
			wantTrail:  "glm#1 retry transient/500 t=0ms, glm#2 retry transient/502 wait=100ms t=0ms, glm#3 ok wait=200ms t=0ms",
			wantEvents: hiEvents, wantProvider: "glm", wantModel: "glm-4.6",
			wantSlept: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond},
		},
		{
			name:   "one attempt means no retry",
			policy: Policy{Attempts: 1},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{fail(classErr(sdk.ClassTransient, 503, 0))}}},
				{name: "ollama", calls: [][]step{local}},
			},
			wantTrail:  "glm#1 fallback transient/503 t=0ms, ollama#1 ok t=0ms",
			wantEvents: localEvents, wantProvider: "ollama", wantModel: "qwen2.5:3b",
		},
		{
			name: "permanent falls back without retry",
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{fail(classErr(sdk.ClassPermanent, 404, 0))}}},
				{name: "ollama", calls: [][]step{local}},
			},
			wantTrail:  "glm#1 fallback permanent/404 t=0ms, ollama#1 ok t=0ms",
			wantEvents: localEvents, wantProvider: "ollama", wantModel: "qwen2.5:3b",
		},
		{
			name: "auth_required falls back without retry",
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{fail(classErr(sdk.ClassAuthRequired, 401, 0))}}},
				{name: "ollama", calls: [][]step{local}},
			},
			wantTrail:  "glm#1 fallback auth_required/401 t=0ms, ollama#1 ok t=0ms",
			wantEvents: localEvents, wantProvider: "ollama", wantModel: "qwen2.5:3b",
		},
		{
			name: "quota_exhausted falls back without retry, even with a hint",
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{fail(classErr(sdk.ClassQuotaExhausted, 429, 2*time.Second))}}},
				{name: "ollama", calls: [][]step{local}},
			},
			wantTrail:  "glm#1 fallback quota_exhausted/429 hint=2000ms t=0ms, ollama#1 ok t=0ms",
			wantEvents: localEvents, wantProvider: "ollama", wantModel: "qwen2.5:3b",
		},
		{
			name: "an unclassified error is permanent",
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{fail(errors.New("boom"))}}},
				{name: "ollama", calls: [][]step{local}},
			},
			wantTrail:  "glm#1 fallback permanent/unclassified t=0ms, ollama#1 ok t=0ms",
			wantEvents: localEvents, wantProvider: "ollama", wantModel: "qwen2.5:3b",
		},
		{
			name: "context_overflow skips to a larger window and tries unknown ones",
			hops: []hopSpec{
				{name: "small", window: 8000, calls: [][]step{{fail(classErr(sdk.ClassContextOverflow, 400, 0))}}},
				{name: "same", window: 8000},
				{name: "unknown", calls: [][]step{{fail(classErr(sdk.ClassContextOverflow, 400, 0))}}},
				{name: "smaller", window: 4000},
				{name: "big", window: 200000, calls: [][]step{hi}},
			},
			wantTrail:  "small#1 fallback context_overflow/400 t=0ms, same skip, unknown#1 fallback context_overflow/400 t=0ms, smaller skip, big#1 ok t=0ms",
			wantEvents: hiEvents, wantProvider: "big", wantModel: "glm-4.6",
		},
		{
			name: "context_overflow with no larger window exhausts the chain",
			hops: []hopSpec{
				{name: "big", window: 128000, calls: [][]step{{fail(classErr(sdk.ClassContextOverflow, 400, 0))}}},
				{name: "small", window: 32000},
			},
			wantTrail: "big#1 fallback context_overflow/400 t=0ms, small skip",
			wantErr:   exhausted, wantClass: sdk.ClassContextOverflow,
		},
		{
			name: "content_filter ends the chain by default",
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{fail(classErr(sdk.ClassContentFilter, 400, 0))}}},
				{name: "ollama"},
			},
			wantTrail: "glm#1 stop content_filter/400 t=0ms",
			wantErr:   exhausted, wantClass: sdk.ClassContentFilter,
		},
		{
			name:   "content_filter falls back when the policy allows",
			policy: Policy{AllowContentFilterFallback: true},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{fail(classErr(sdk.ClassContentFilter, 400, 0))}}},
				{name: "ollama", calls: [][]step{local}},
			},
			wantTrail:  "glm#1 fallback content_filter/400 t=0ms, ollama#1 ok t=0ms",
			wantEvents: localEvents, wantProvider: "ollama", wantModel: "qwen2.5:3b",
		},
		{
			name: "a refusal finish before content is an answer by default",
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{start(""), finish(sdk.FinishContentFilter)}}},
				{name: "ollama"},
			},
			wantTrail:    "glm#1 ok t=0ms",
			wantEvents:   []sdk.Event{{Type: sdk.EventStart}, {Type: sdk.EventFinish, Finish: sdk.FinishContentFilter}},
			wantProvider: "glm", wantModel: "glm-model",
		},
		{
			name:   "a refusal finish before content falls back when the policy allows",
			policy: Policy{AllowContentFilterFallback: true},
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{start(""), finish(sdk.FinishContentFilter)}}},
				{name: "ollama", calls: [][]step{local}},
			},
			wantTrail:  "glm#1 fallback content_filter/refusal t=0ms, ollama#1 ok t=0ms",
			wantEvents: localEvents, wantProvider: "ollama", wantModel: "qwen2.5:3b",
		},
		{
			name: "exhaustion returns the last failure and the whole trail",
			hops: []hopSpec{
				{name: "glm", calls: [][]step{{fail(classErr(sdk.ClassAuthRequired, 401, 0))}}},
				{name: "ollama", calls: [][]step{
					{fail(classErr(sdk.ClassTransient, 500, 0))},
					{fail(classErr(sdk.ClassTransient, 502, 0))},
				}},
			},
			wantTrail: "glm#1 fallback auth_required/401 t=0ms, ollama#1 retry transient/500 t=0ms, ollama#2 fallback transient/502 wait=500ms t=0ms",
			wantErr:   exhausted, wantClass: sdk.ClassTransient,
			wantSlept: []time.Duration{500 * time.Millisecond},
		},
	})
}

func TestExhaustedErrorRetryAfter(t *testing.T) {
	t.Parallel()
	c := &Chain{Name: "default", Clock: newFakeClock(), Policy: Policy{Attempts: 1}, Hops: []Hop{
		{Name: "a", Provider: &scripted{t: t, name: "a", calls: [][]step{{fail(classErr(sdk.ClassTransient, 429, 30*time.Second))}}}},
		{Name: "b", Provider: &scripted{t: t, name: "b", calls: [][]step{{fail(classErr(sdk.ClassTransient, 503, 0))}}}},
		{Name: "c", Provider: &scripted{t: t, name: "c", calls: [][]step{{fail(classErr(sdk.ClassTransient, 429, 5*time.Second))}}}},
	}}
	_, err := c.Run(context.Background(), userRequest("hi"), &recorder{}, nil)
	var ee *ExhaustedError
	if !errors.As(err, &ee) {
		t.Fatalf("err = %v, want *ExhaustedError", err)
	}
	if got, want := ee.RetryAfter(), 5*time.Second; got != want {
		t.Errorf("RetryAfter() = %v, want %v", got, want)
	}
	if got, want := ee.Error(), `chain "default": no provider answered after 3 attempts: transient: upstream 429`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestRunRejectsInvalidChain(t *testing.T) {
	t.Parallel()
	p := &scripted{t: t, name: "p"}
	tests := []struct {
		name string
		hops []Hop
	}{
		{"no hops", nil},
		{"hop without a name", []Hop{{Provider: p}}},
		{"hop without a provider", []Hop{{Name: "glm"}}},
		{"duplicate names", []Hop{{Name: "glm", Provider: p}, {Name: "glm", Provider: p}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &Chain{Name: "default", Hops: tc.hops}
			if err := c.Validate(); err == nil {
				t.Error("Validate() = nil, want an error")
			}
			res, err := c.Run(context.Background(), userRequest("hi"), &recorder{}, nil)
			if err == nil || res == nil || len(res.Trail) != 0 {
				t.Errorf("Run() = %+v, %v; want an empty result and an error", res, err)
			}
		})
	}
}
