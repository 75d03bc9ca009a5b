package chain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
)

// fakeClock is a manual clock. Time moves only through Advance and Sleep;
// Advance runs the callbacks of timers that come due synchronously, so a
// fake provider that advances the clock sees the resulting cancellation
// before its next statement.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	slept  []time.Duration
}

type fakeTimer struct {
	c      *fakeClock
	when   time.Time
	f      func()
	active bool
}

var _ Clock = (*fakeClock)(nil)

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, when: c.now.Add(d), f: f, active: true}
	c.timers = append(c.timers, t)
	return t
}

// Sleep records the wait and lets that much fake time pass at once.
func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.slept = append(c.slept, d)
	c.mu.Unlock()
	c.Advance(d)
	return nil
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var due *fakeTimer
		for _, t := range c.timers {
			if t.active && !t.when.After(c.now) && (due == nil || t.when.Before(due.when)) {
				due = t
			}
		}
		if due == nil {
			c.mu.Unlock()
			return
		}
		due.active = false
		c.mu.Unlock()
		due.f()
	}
}

func (c *fakeClock) sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.slept)
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.active = false
	return was
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.when, t.active = t.c.now.Add(d), true
	return was
}

// fixedRand is a Rand that always draws u: 0.5 leaves a backoff as it is
// and puts a hinted wait 10% above its hint.
type fixedRand float64

var _ Rand = fixedRand(0)

func (u fixedRand) Float64() float64 { return float64(u) }

// step is one thing a scripted provider does; a non-nil error ends the
// call with that error.
type step func(ctx context.Context, req *sdk.Request, out sdk.Sink) error

// scripted is a provider whose n-th Generate call runs calls[n]. A call
// past the script fails the test. It records each request it received and
// how each call's context ended.
type scripted struct {
	t     testing.TB
	name  string
	calls [][]step

	mu     sync.Mutex
	reqs   []*sdk.Request
	causes []error // context.Cause of each call's ctx when it returned; nil: still live
	sinks  []sdk.Sink
}

var _ Generator = (*scripted)(nil)

func (p *scripted) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	p.mu.Lock()
	n := len(p.reqs)
	p.reqs = append(p.reqs, req)
	p.sinks = append(p.sinks, out)
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.causes = append(p.causes, context.Cause(ctx))
		p.mu.Unlock()
	}()
	if n >= len(p.calls) {
		p.t.Errorf("%s: unexpected call %d", p.name, n+1)
		return sdk.Permanentf("unexpected call")
	}
	for _, s := range p.calls[n] {
		if err := s(ctx, req, out); err != nil {
			return err
		}
	}
	return nil
}

func (p *scripted) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.reqs)
}

func send(ev sdk.Event) step {
	return func(ctx context.Context, _ *sdk.Request, out sdk.Sink) error { return out.Send(ctx, ev) }
}

// batch sends evs in one call, as events that arrived in one message of
// the plugin protocol come.
func batch(evs ...sdk.Event) step {
	return func(ctx context.Context, _ *sdk.Request, out sdk.Sink) error { return sdk.SendBatch(ctx, out, evs) }
}

func start(model string) step { return send(sdk.Event{Type: sdk.EventStart, Model: model}) }
func text(s string) step      { return send(sdk.Event{Type: sdk.EventTextDelta, Text: s}) }
func usage(in, out int64) step {
	return send(sdk.Event{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(in), OutputTokens: sdk.Tokens(out)}})
}
func finish(r sdk.FinishReason) step { return send(sdk.Event{Type: sdk.EventFinish, Finish: r}) }

func fail(err error) step {
	return func(context.Context, *sdk.Request, sdk.Sink) error { return err }
}

// answer is a whole successful call: start, one text delta, usage, finish.
func answer(model, s string) []step {
	return []step{start(model), text(s), usage(10, 2), finish(sdk.FinishStop)}
}

func answerEvents(model, s string) []sdk.Event {
	return []sdk.Event{
		{Type: sdk.EventStart, Model: model},
		{Type: sdk.EventTextDelta, Text: s},
		{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(10), OutputTokens: sdk.Tokens(2)}},
		{Type: sdk.EventFinish, Finish: sdk.FinishStop},
	}
}

// advance lets d of fake time pass while the provider is silent.
func advance(c *fakeClock, d time.Duration) step {
	return func(context.Context, *sdk.Request, sdk.Sink) error {
		c.Advance(d)
		return nil
	}
}

// mustBeCanceled ends the call with ctx's error, and fails it with a
// distinct error when ctx is still live: with the fake clock, a timeout
// that fired has already cancelled ctx by the time this runs.
func mustBeCanceled() step {
	return func(ctx context.Context, _ *sdk.Request, _ sdk.Sink) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		default:
			return sdk.Permanentf("fake: context still live")
		}
	}
}

// blockUntilCanceled is a provider that never answers.
func blockUntilCanceled() step {
	return func(ctx context.Context, _ *sdk.Request, _ sdk.Sink) error {
		<-ctx.Done()
		return ctx.Err()
	}
}

func classErr(class sdk.Class, status int, retryAfter time.Duration) *sdk.Error {
	return &sdk.Error{Class: class, Status: status, RetryAfter: retryAfter, Message: fmt.Sprintf("upstream %d", status)}
}

// recorder is a client sink. It appends each event to events and, when log
// is set, a line to log, so tests can check order against an observer.
type recorder struct {
	mu     sync.Mutex
	events []sdk.Event
	log    *eventLog
	failAt int // fail the failAt-th Send (1-based); 0: never
	onSend func(ev sdk.Event)
	// batches is the length of every SendBatch call's batch.
	batches []int
}

var _ sdk.BatchSink = (*recorder)(nil)

// SendBatch takes evs one by one, as Send does, and notes the batch.
func (r *recorder) SendBatch(ctx context.Context, evs []sdk.Event) error {
	r.mu.Lock()
	r.batches = append(r.batches, len(evs))
	r.mu.Unlock()
	for _, ev := range evs {
		if err := r.Send(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

func (r *recorder) gotBatches() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.batches)
}

var errClientGone = errors.New("client went away")

func (r *recorder) Send(_ context.Context, ev sdk.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.onSend != nil {
		r.onSend(ev)
	}
	if r.failAt > 0 && len(r.events)+1 == r.failAt {
		return errClientGone
	}
	r.events = append(r.events, ev)
	r.log.add("client " + string(ev.Type))
	return nil
}

func (r *recorder) got() []sdk.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

type eventLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *eventLog) add(s string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

func (l *eventLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// watcher is an Observer that logs each call.
type watcher struct {
	log   *eventLog
	onHop func(Attempt)
}

var _ Observer = (*watcher)(nil)

func (w *watcher) OnTurnStart(chain string) { w.log.add("turn start " + chain) }
func (w *watcher) OnHop(chain string, a Attempt) {
	w.log.add(fmt.Sprintf("hop %s %s#%d %s", chain, a.Provider, a.Attempt, a.Outcome))
	if w.onHop != nil {
		w.onHop(a)
	}
}
func (w *watcher) OnFirstContent(chain, provider string) {
	w.log.add("first content " + chain + " " + provider)
}
func (w *watcher) OnTurnEnd(chain string, res *Result, err error) {
	w.log.add(fmt.Sprintf("turn end %s provider=%q err=%v", chain, res.Provider, err != nil))
}

func userRequest(s string) *sdk.Request {
	return &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: s}}}}}
}
