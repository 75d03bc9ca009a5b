package faces

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/sdk"
)

// fakeDisplay records frames; when gate is set, each Show waits on it.
type fakeDisplay struct {
	gate    chan struct{}
	entered chan struct{} // when set, told each time Show starts
	fail    error
	mu      sync.Mutex
	failN   int // the next failN Shows fail (besides fail)
	shown   []sdk.Expression
	seen    chan sdk.Expression
}

func newFake() *fakeDisplay { return &fakeDisplay{seen: make(chan sdk.Expression, 100)} }

func (d *fakeDisplay) Name() string { return "fake" }
func (d *fakeDisplay) Caps(context.Context) (sdk.DisplayCaps, error) {
	return sdk.DisplayCaps{Width: 250, Height: 122, Mono: true}, nil
}

func (d *fakeDisplay) Show(ctx context.Context, f sdk.Frame) error {
	if d.entered != nil {
		d.entered <- struct{}{}
	}
	if d.gate != nil {
		select {
		case <-d.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	d.mu.Lock()
	d.shown = append(d.shown, f.Expression)
	err := d.fail
	if d.failN > 0 {
		d.failN--
		err = errors.New("plugin face is restarting")
	}
	d.mu.Unlock()
	d.seen <- f.Expression
	return err
}

// waitFor reads the frames drawn until e. Its deadline is only a guard
// against a hung test, never what the test waits for.
func (d *fakeDisplay) waitFor(t *testing.T, e sdk.Expression) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case got := <-d.seen:
			if got == e {
				return
			}
		case <-timeout:
			t.Fatalf("display never showed %s; shown %v", e, d.frames())
		}
	}
}

func (d *fakeDisplay) frames() []sdk.Expression {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]sdk.Expression(nil), d.shown...)
}

func TestLifecycleOfASuccessfulTurn(t *testing.T) {
	t.Parallel()
	d := newFake()
	clk := newFakeClock()
	f := New([]Display{d}, hclog.NewNullLogger(), Options{HappyFor: 3 * time.Second, Clock: clk})
	defer f.Close()
	d.waitFor(t, sdk.ExprIdle)
	f.OnTurnStart("default")
	d.waitFor(t, sdk.ExprThinking)
	f.OnFirstContent("default", "glm")
	d.waitFor(t, sdk.ExprSpeaking)
	f.OnTurnEnd("default", &chain.Result{Provider: "glm"}, nil)
	d.waitFor(t, sdk.ExprHappy)
	clk.Advance(3 * time.Second) // happy has shown for HappyFor
	d.waitFor(t, sdk.ExprIdle)
	want := []sdk.Expression{sdk.ExprIdle, sdk.ExprThinking, sdk.ExprSpeaking, sdk.ExprHappy, sdk.ExprIdle}
	if diff := cmp.Diff(want, d.frames()); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
}

func TestExhaustedChainShowsDegradedAndRecovers(t *testing.T) {
	t.Parallel()
	d := newFake()
	f := New([]Display{d}, hclog.NewNullLogger(), Options{HappyFor: time.Hour, Clock: newFakeClock()})
	defer f.Close()
	f.OnTurnStart("default")
	f.OnTurnEnd("default", &chain.Result{}, &chain.ExhaustedError{Chain: "default", Last: sdk.ErrTransient})
	d.waitFor(t, sdk.ExprDegraded)
	f.OnTurnStart("default")
	f.OnFirstContent("default", "ollama")
	f.OnTurnEnd("default", &chain.Result{Provider: "ollama"}, nil)
	d.waitFor(t, sdk.ExprHappy)
}

// TestSlowDisplayNeverBlocksTheTurn: while the panel is stuck in a Show,
// every observer call returns, and when it frees up only the newest frame
// is drawn (coalesced), not the backlog.
func TestSlowDisplayNeverBlocksTheTurn(t *testing.T) {
	t.Parallel()
	d := newFake()
	d.gate = make(chan struct{})
	d.entered = make(chan struct{}, 10)
	f := New([]Display{d}, hclog.NewNullLogger(), Options{HappyFor: time.Hour, Clock: newFakeClock()})
	defer f.Close()
	<-d.entered     // the worker is now stuck drawing the idle face
	for range 100 { // each would block if the observer waited on the display
		f.OnTurnStart("default")
		f.OnFirstContent("default", "glm")
		f.OnTurnEnd("default", &chain.Result{Provider: "glm"}, nil)
	}
	d.gate <- struct{}{} // the idle frame from New, stuck until now
	d.waitFor(t, sdk.ExprIdle)
	d.gate <- struct{}{}
	d.waitFor(t, sdk.ExprHappy)
	close(d.gate)
	if got := d.frames(); len(got) != 2 {
		t.Errorf("drew %v, want only idle then the latest (happy)", got)
	}
}

func TestFailingDisplayIsContained(t *testing.T) {
	t.Parallel()
	d := newFake()
	d.fail = errors.New("SPI bus on fire")
	ok := newFake()
	f := New([]Display{d, ok}, hclog.NewNullLogger(), Options{Clock: newFakeClock()})
	defer f.Close()
	f.OnTurnStart("default")
	ok.waitFor(t, sdk.ExprThinking)
	d.waitFor(t, sdk.ExprThinking)
}

// TestAFailedFrameIsTriedAgain: a frame the display failed to show (its
// plugin restarting after a crash) is shown again after a wait that grows
// with each failure, so the panel does not stay on a face the turn has
// left; a newer frame offered meanwhile replaces it.
func TestAFailedFrameIsTriedAgain(t *testing.T) {
	t.Parallel()
	d := newFake()
	d.failN = 2
	clk := newFakeClock()
	f := New([]Display{d}, hclog.NewNullLogger(), Options{HappyFor: time.Hour, Clock: clk})
	defer f.Close()
	d.waitFor(t, sdk.ExprIdle) // failed
	clk.awaitWait(t, firstRetry)
	clk.Advance(firstRetry)
	d.waitFor(t, sdk.ExprIdle) // failed again
	clk.awaitWait(t, 2*firstRetry)
	clk.Advance(2 * firstRetry)
	d.waitFor(t, sdk.ExprIdle) // shown
	f.OnTurnStart("default")
	d.waitFor(t, sdk.ExprThinking)
	if diff := cmp.Diff([]sdk.Expression{sdk.ExprIdle, sdk.ExprIdle, sdk.ExprIdle, sdk.ExprThinking}, d.frames()); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}

	// Failing again, the retry gives way to the newer frame.
	d.mu.Lock()
	d.failN = 1
	d.mu.Unlock()
	f.OnFirstContent("default", "glm")
	d.waitFor(t, sdk.ExprSpeaking) // failed
	clk.awaitWait(t, firstRetry)
	f.OnTurnEnd("default", &chain.Result{Provider: "glm"}, nil)
	clk.Advance(firstRetry)
	d.waitFor(t, sdk.ExprHappy)
	if diff := cmp.Diff([]sdk.Expression{sdk.ExprSpeaking, sdk.ExprHappy}, d.frames()[4:]); diff != "" {
		t.Errorf("frames after the second failure (-want +got):\n%s", diff)
	}
}

func TestRetryWaitGrowsToItsBound(t *testing.T) {
	t.Parallel()
	if got := []time.Duration{retryWait(1), retryWait(2), retryWait(3)}; !slices.Equal(got, []time.Duration{firstRetry, 2 * firstRetry, 4 * firstRetry}) {
		t.Errorf("waits %v", got)
	}
	if got := retryWait(1000); got != maxRetry {
		t.Errorf("wait after 1000 failures %v, want %v", got, maxRetry)
	}
}

// TestFramesAreRateLimited: after drawing, a panel rests for MinInterval;
// the frames offered meanwhile are coalesced, and only the newest is drawn.
func TestFramesAreRateLimited(t *testing.T) {
	t.Parallel()
	d := newFake()
	clk := newFakeClock()
	f := New([]Display{d}, hclog.NewNullLogger(), Options{MinInterval: 10 * time.Second, HappyFor: time.Hour, Clock: clk})
	defer f.Close()
	d.waitFor(t, sdk.ExprIdle)
	clk.awaitWait(t, 10*time.Second) // the worker rests after the idle face
	f.OnTurnStart("default")
	f.OnFirstContent("default", "glm")
	clk.Advance(10 * time.Second)
	d.waitFor(t, sdk.ExprSpeaking)
	want := []sdk.Expression{sdk.ExprIdle, sdk.ExprSpeaking}
	if diff := cmp.Diff(want, d.frames()); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
}

// TestAStuckShowIsCancelledAfterShowTimeout: a display that never finishes
// a Show is given up on after ShowTimeout, and the next frame is drawn.
func TestAStuckShowIsCancelledAfterShowTimeout(t *testing.T) {
	t.Parallel()
	d := newFake()
	d.gate = make(chan struct{}) // closed only below: until then a Show ends only with its context
	d.entered = make(chan struct{}, 10)
	clk := newFakeClock()
	f := New([]Display{d}, hclog.NewNullLogger(), Options{ShowTimeout: 5 * time.Second, HappyFor: time.Hour, Clock: clk})
	defer f.Close()
	<-d.entered // stuck drawing the idle face
	f.OnTurnStart("default")
	clk.Advance(5 * time.Second)
	<-d.entered // the idle Show was cancelled: the worker moved on to thinking
	close(d.gate)
	d.waitFor(t, sdk.ExprThinking)
	if diff := cmp.Diff([]sdk.Expression{sdk.ExprThinking}, d.frames()); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
}

// capsFailing is a display whose start fails: Caps is its first call.
type capsFailing struct{ *fakeDisplay }

func (capsFailing) Caps(context.Context) (sdk.DisplayCaps, error) {
	return sdk.DisplayCaps{}, errors.New("term: open /dev/tty: add grant { devices = [\"/dev/tty\"] }")
}

// TestAFailedStartIsLogged: the first call to a display starts its plugin;
// when that fails, the reason (its Configure error) is in the log, not only
// the "restarting" of the calls after it.
func TestAFailedStartIsLogged(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	d := capsFailing{newFake()}
	f := New([]Display{d}, hclog.New(&hclog.LoggerOptions{Output: &logs}), Options{Clock: newFakeClock()})
	f.OnTurnStart("default")
	d.waitFor(t, sdk.ExprThinking)
	f.Close()
	if got := logs.String(); !strings.Contains(got, `add grant { devices = [\"/dev/tty\"] }`) {
		t.Errorf("the start failure is not in the log:\n%s", got)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
