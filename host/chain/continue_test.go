package chain

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
)

// clientText is the text the client received, and how many start and
// finish events came with it.
func clientText(evs []sdk.Event) (text string, starts, finishes int) {
	var b strings.Builder
	for _, ev := range evs {
		switch ev.Type {
		case sdk.EventTextDelta:
			b.WriteString(ev.Text)
		case sdk.EventStart:
			starts++
		case sdk.EventFinish:
			finishes++
		}
	}
	return b.String(), starts, finishes
}

var errCut = &sdk.Error{Class: sdk.ClassTransient, Code: "stream_cut", Message: "upstream closed mid-stream"}

func errPrefill() *sdk.Error {
	return &sdk.Error{Class: sdk.ClassPermanent, Status: 400, Code: "invalid_prefill", Message: "no prefill here"}
}

// cutAfter is a call that sends start and the given deltas, then fails with errCut.
func cutAfter(deltas ...string) []step {
	s := []step{start("m-a")}
	for _, d := range deltas {
		s = append(s, text(d))
	}
	return append(s, fail(errCut))
}

func continueChain(clk *fakeClock, hops ...Hop) *Chain {
	return &Chain{Name: "c", Hops: hops, Clock: clk, Rand: fixedRand(0.5)}
}

func lastMessage(req *sdk.Request) sdk.Message { return req.Messages[len(req.Messages)-1] }

func TestContinuePrefill(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	a := &scripted{t: t, name: "a", calls: [][]step{cutAfter("Hello, ", "wor")}}
	b := &scripted{t: t, name: "b", calls: [][]step{{start("m-b"), text("ld!"), usage(20, 1), finish(sdk.FinishStop)}}}
	ch := continueChain(clk, Hop{Name: "a", Provider: a}, Hop{Name: "b", Provider: b, Prefill: true})
	var commits []Commit
	rec := &recorder{}
	res, err := ch.Run(context.Background(), userRequest("hi"), rec, func(c Commit) { commits = append(commits, c) })
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	got, starts, finishes := clientText(rec.got())
	if got != "Hello, world!" || starts != 1 || finishes != 1 {
		t.Errorf("client got %q, %d starts, %d finishes; want %q, 1, 1", got, starts, finishes, "Hello, world!")
	}
	if evs := rec.got(); evs[0].Model != "m-a" {
		t.Errorf("first event %+v: want a's start", evs[0])
	}
	if len(commits) != 1 || commits[0].Provider != "a" {
		t.Errorf("commits %+v, want one, for a", commits)
	}
	m := lastMessage(b.reqs[0])
	if m.Role != sdk.RoleAssistant || sdk.TextOf(m.Parts) != "Hello, wor" || len(b.reqs[0].Messages) != 2 {
		t.Errorf("b's request ends %+v, want the assistant prefill %q", m, "Hello, wor")
	}
	if res.Provider != "b" || res.Finish != sdk.FinishStop || res.Usage == nil || *res.Usage.OutputTokens != 1 {
		t.Errorf("result %+v", res)
	}
	if want := "a#1 cut after 10 bytes transient/stream_cut t=0ms, b#1 continue prefill ok t=0ms"; res.Trail.String() != want {
		t.Errorf("trail\n got %s\nwant %s", res.Trail, want)
	}
}

// A hop that does not declare prefill is passed over; without any, the
// committed failure ends the stream as before.
func TestContinueOnlyOnPrefillHops(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	a := &scripted{t: t, name: "a", calls: [][]step{cutAfter("Hel")}}
	b := &scripted{t: t, name: "b"}
	c := &scripted{t: t, name: "c", calls: [][]step{{text("lo"), finish(sdk.FinishStop)}}}
	ch := continueChain(clk, Hop{Name: "a", Provider: a}, Hop{Name: "b", Provider: b}, Hop{Name: "c", Provider: c, Prefill: true})
	rec := &recorder{}
	res, err := ch.Run(context.Background(), userRequest("hi"), rec, nil)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, _, _ := clientText(rec.got()); got != "Hello" || b.count() != 0 {
		t.Errorf("client got %q, b called %d times", got, b.count())
	}
	if want := "a#1 cut after 3 bytes transient/stream_cut t=0ms, c#1 continue prefill ok t=0ms"; res.Trail.String() != want {
		t.Errorf("trail %s", res.Trail)
	}

	a2 := &scripted{t: t, name: "a", calls: [][]step{cutAfter("Hel")}}
	ch = continueChain(clk, Hop{Name: "a", Provider: a2}, Hop{Name: "b", Provider: b})
	_, err = ch.Run(context.Background(), userRequest("hi"), &recorder{}, nil)
	var ce *CommittedError
	if !errors.As(err, &ce) || !errors.Is(err, errCut) {
		t.Fatalf("err %v, want the committed cut", err)
	}
	if want := "a#1 stop transient/stream_cut committed t=0ms"; ce.Trail.String() != want {
		t.Errorf("trail %s, want %s (unchanged)", ce.Trail, want)
	}
}

func TestContinueRegenerate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		regen  []step
		ok     bool
		client string
		trail  string
	}{
		{"prefix matches", []step{start("m-b"), text("Hello"), text(", world!"), finish(sdk.FinishStop)}, true, "Hello, world!",
			"a#1 cut after 10 bytes transient/stream_cut t=0ms, b#1 continue prefill retry permanent/400/invalid_prefill t=0ms, b#2 continue regenerate ok t=0ms"},
		{"answer ends exactly at the cut", []step{text("Hello, wor"), finish(sdk.FinishStop)}, true, "Hello, wor",
			"a#1 cut after 10 bytes transient/stream_cut t=0ms, b#1 continue prefill retry permanent/400/invalid_prefill t=0ms, b#2 continue regenerate ok t=0ms"},
		{"prefix differs", []step{text("Hello, "), text("there"), finish(sdk.FinishStop)}, false, "Hello, wor",
			"a#1 cut after 10 bytes transient/stream_cut t=0ms, b#1 continue prefill retry permanent/400/invalid_prefill t=0ms, b#2 continue regenerate mismatch permanent/continue_mismatch t=0ms"},
		{"answer shorter than the text sent", []step{text("Hello"), finish(sdk.FinishStop)}, false, "Hello, wor",
			"a#1 cut after 10 bytes transient/stream_cut t=0ms, b#1 continue prefill retry permanent/400/invalid_prefill t=0ms, b#2 continue regenerate mismatch permanent/continue_mismatch t=0ms"},
		{"a tool call before the prefix is passed", []step{text("Hello"), send(sdk.Event{Type: sdk.EventToolCall, ToolCall: &sdk.ToolCall{ID: "1", Name: "x"}}), finish(sdk.FinishToolCalls)}, false, "Hello, wor",
			"a#1 cut after 10 bytes transient/stream_cut t=0ms, b#1 continue prefill retry permanent/400/invalid_prefill t=0ms, b#2 continue regenerate mismatch permanent/continue_mismatch t=0ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := newFakeClock()
			a := &scripted{t: t, name: "a", calls: [][]step{cutAfter("Hello, ", "wor")}}
			b := &scripted{t: t, name: "b", calls: [][]step{{start("m-b"), fail(errPrefill())}, tc.regen}}
			c := &scripted{t: t, name: "c"} // never reached: a mismatch ends the turn
			ch := continueChain(clk, Hop{Name: "a", Provider: a}, Hop{Name: "b", Provider: b, Prefill: true}, Hop{Name: "c", Provider: c, Prefill: true})
			rec := &recorder{}
			res, err := ch.Run(context.Background(), userRequest("hi"), rec, nil)
			got, starts, finishes := clientText(rec.got())
			if got != tc.client || starts != 1 {
				t.Errorf("client got %q (%d starts), want %q", got, starts, tc.client)
			}
			if tc.ok {
				if err != nil || finishes != 1 {
					t.Fatalf("Run: %v, %d finishes", err, finishes)
				}
			} else {
				var ce *CommittedError
				if !errors.As(err, &ce) || !errors.Is(err, errCut) || ce.Provider != "a" || finishes != 0 {
					t.Fatalf("err %v (%d finishes), want a's original committed error", err, finishes)
				}
			}
			if len(b.reqs) != 2 || len(b.reqs[1].Messages) != 1 || lastMessage(b.reqs[1]).Role != sdk.RoleUser {
				t.Errorf("b's regenerate request is not the original one")
			}
			if res.Trail.String() != tc.trail {
				t.Errorf("trail\n got %s\nwant %s", res.Trail, tc.trail)
			}
		})
	}
}

// A continuation that fails before content, or a regenerate that fails,
// moves on to the next prefill hop; the original error stays when none
// finishes.
func TestContinueFallsBackAndKeepsTheOriginalError(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	a := &scripted{t: t, name: "a", calls: [][]step{cutAfter("Hel")}}
	b := &scripted{t: t, name: "b", calls: [][]step{{fail(classErr(sdk.ClassTransient, 529, 0))}}}
	c := &scripted{t: t, name: "c", calls: [][]step{{fail(errPrefill())}, {fail(classErr(sdk.ClassTransient, 503, 0))}}}
	ch := continueChain(clk, Hop{Name: "a", Provider: a}, Hop{Name: "b", Provider: b, Prefill: true}, Hop{Name: "c", Provider: c, Prefill: true})
	rec := &recorder{}
	res, err := ch.Run(context.Background(), userRequest("hi"), rec, nil)
	var ce *CommittedError
	if !errors.As(err, &ce) || !errors.Is(err, errCut) {
		t.Fatalf("err %v, want the original cut", err)
	}
	if got, _, fin := clientText(rec.got()); got != "Hel" || fin != 0 {
		t.Errorf("client %q, %d finishes", got, fin)
	}
	want := "a#1 cut after 3 bytes transient/stream_cut t=0ms, b#1 continue prefill fallback transient/529 t=0ms, c#1 continue prefill retry permanent/400/invalid_prefill t=0ms, c#2 continue regenerate fallback transient/503 t=0ms"
	if res.Trail.String() != want {
		t.Errorf("trail\n got %s\nwant %s", res.Trail, want)
	}
}

// A continuation that itself breaks off after more text is continued in
// turn from everything the client has.
func TestContinueTwice(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	a := &scripted{t: t, name: "a", calls: [][]step{cutAfter("one ")}}
	b := &scripted{t: t, name: "b", calls: [][]step{{text("two "), fail(errCut)}}}
	c := &scripted{t: t, name: "c", calls: [][]step{{text("three"), finish(sdk.FinishStop)}}}
	ch := continueChain(clk, Hop{Name: "a", Provider: a}, Hop{Name: "b", Provider: b, Prefill: true}, Hop{Name: "c", Provider: c, Prefill: true})
	rec := &recorder{}
	res, err := ch.Run(context.Background(), userRequest("hi"), rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, starts, fin := clientText(rec.got()); got != "one two three" || starts != 1 || fin != 1 {
		t.Errorf("client %q %d %d", got, starts, fin)
	}
	if p := sdk.TextOf(lastMessage(c.reqs[0]).Parts); p != "one two " {
		t.Errorf("c's prefill %q", p)
	}
	if want := "a#1 cut after 4 bytes transient/stream_cut t=0ms, b#1 continue prefill cut after 8 bytes transient/stream_cut t=0ms, c#1 continue prefill ok t=0ms"; res.Trail.String() != want {
		t.Errorf("trail %s", res.Trail)
	}
}

// The idle timeout after some text triggers the same continuation.
func TestContinueAfterIdleTimeout(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	a := &scripted{t: t, name: "a", calls: [][]step{{start("m-a"), text("twenty tokens"), advance(clk, 5*time.Second), mustBeCanceled()}}}
	b := &scripted{t: t, name: "b", calls: [][]step{{text(" and the rest"), finish(sdk.FinishStop)}}}
	ch := continueChain(clk, Hop{Name: "a", Provider: a, Idle: 2 * time.Second}, Hop{Name: "b", Provider: b, Prefill: true})
	rec := &recorder{}
	res, err := ch.Run(context.Background(), userRequest("hi"), rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := clientText(rec.got()); got != "twenty tokens and the rest" {
		t.Errorf("client %q", got)
	}
	if want := "a#1 cut after 13 bytes transient/idle_timeout t=5000ms, b#1 continue prefill ok t=0ms"; res.Trail.String() != want {
		t.Errorf("trail %s", res.Trail)
	}
}

// Once a tool call or reasoning reached the client, or for a Buffered Run,
// a broken stream is never continued.
func TestNoContinuation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"tool call", []step{text("let me look"), send(sdk.Event{Type: sdk.EventToolCall, ToolCall: &sdk.ToolCall{ID: "1", Name: "x", Input: []byte(`{}`)}}), fail(errCut)}},
		// The provider holds a call's fragments until it is whole: the client
		// has seen only text, but the call it was about to get is lost.
		{"tool call begun, not yet whole", []step{text("let me look"), send(sdk.Event{Type: sdk.EventToolCallBegin}), fail(errCut)}},
		{"reasoning", []step{send(sdk.Event{Type: sdk.EventReasoningDelta, Text: "hmm"}), text("so"), fail(errCut)}},
		{"refusal mid-stream", []step{text("so"), fail(&sdk.Error{Class: sdk.ClassContentFilter, Message: "no"})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := &scripted{t: t, name: "a", calls: [][]step{tc.steps}}
			b := &scripted{t: t, name: "b"}
			ch := continueChain(newFakeClock(), Hop{Name: "a", Provider: a}, Hop{Name: "b", Provider: b, Prefill: true})
			_, err := ch.Run(context.Background(), userRequest("hi"), &recorder{}, nil)
			var ce *CommittedError
			if !errors.As(err, &ce) || b.count() != 0 {
				t.Fatalf("err %v, b called %d times: want the committed error and no continuation", err, b.count())
			}
		})
	}
	// Buffered: the cut hop's answer never reached the client, so b
	// answers in full as an ordinary fallback.
	a := &scripted{t: t, name: "a", calls: [][]step{{text("Hel"), fail(sdk.Permanentf("broken"))}}}
	b := &scripted{t: t, name: "b", calls: [][]step{answer("m-b", "Hello")}}
	ch := continueChain(newFakeClock(), Hop{Name: "a", Provider: a}, Hop{Name: "b", Provider: b, Prefill: true})
	rec := &recorder{}
	res, err := ch.Run(context.Background(), userRequest("hi"), rec, nil, Buffered(0))
	if err != nil || len(b.reqs[0].Messages) != 1 {
		t.Fatalf("buffered: %v", err)
	}
	if got, _, _ := clientText(rec.got()); got != "Hello" || res.Trail[1].Continue != "" {
		t.Errorf("buffered: client %q, trail %s", got, res.Trail)
	}
}

// A client prefill is extended, not followed by a second assistant message.
func TestContinueExtendsClientPrefill(t *testing.T) {
	t.Parallel()
	a := &scripted{t: t, name: "a", calls: [][]step{cutAfter(" world")}}
	b := &scripted{t: t, name: "b", calls: [][]step{{text("!"), finish(sdk.FinishStop)}}}
	ch := continueChain(newFakeClock(), Hop{Name: "a", Provider: a}, Hop{Name: "b", Provider: b, Prefill: true})
	req := userRequest("hi")
	req.Messages = append(req.Messages, sdk.Message{Role: sdk.RoleAssistant, Parts: []sdk.Part{sdk.Text{Text: "Hello"}}})
	if _, err := ch.Run(context.Background(), req, &recorder{}, nil); err != nil {
		t.Fatal(err)
	}
	if got := b.reqs[0]; len(got.Messages) != 2 || sdk.TextOf(lastMessage(got).Parts) != "Hello world" {
		t.Errorf("b's request %+v", got.Messages)
	}
	if len(req.Messages[1].Parts) != 1 {
		t.Errorf("the caller's request was modified")
	}
}
