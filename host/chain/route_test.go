package chain

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

// fixedRouter routes every Run the same way and records what it was asked
// and told.
type fixedRouter struct {
	rt    Route
	asked []Routing
	done  []doneCall
}

type doneCall struct {
	rt       Route
	provider string
	trail    string
	err      error
}

var _ Router = (*fixedRouter)(nil)

func (f *fixedRouter) Route(_ context.Context, q Routing) Route {
	f.asked = append(f.asked, q)
	return f.rt
}

func (f *fixedRouter) Done(rt Route, res *Result, err error) {
	f.done = append(f.done, doneCall{rt: rt, provider: res.Provider, trail: res.Trail.String(), err: err})
}

// routedChain is a chain of hops a, b, c scripted by calls, routed by r.
func routedChain(t *testing.T, clk *fakeClock, r Router, calls map[string][][]step) (*Chain, map[string]*scripted) {
	t.Helper()
	c := &Chain{Name: "default", Clock: clk, Rand: fixedRand(0.5), Router: r}
	provs := map[string]*scripted{}
	for _, name := range []string{"a", "b", "c"} {
		p := &scripted{t: t, name: name, calls: calls[name]}
		provs[name] = p
		c.Hops = append(c.Hops, Hop{Name: name, Provider: p, Model: name + "-model"})
	}
	return c, provs
}

// TestRouterOrdersTheHops: Run tries the hops in the Router's order, never
// one it left out, falls back along that order, and tells the Router how
// the Run ended; the decision line is in the Result and the Commit.
func TestRouterOrdersTheHops(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	r := &fixedRouter{rt: Route{Order: []int{2, 0}, Line: "route strategy=test order=c,a", Note: "mine"}}
	c, provs := routedChain(t, clk, r, map[string][][]step{
		"a": {answer("a-1", "from a")},
		"c": {{fail(classErr(sdk.ClassPermanent, 400, 0))}},
	})
	var commits []Commit
	res, err := c.Run(context.Background(), userRequest("hello"), &recorder{}, func(cm Commit) { commits = append(commits, cm) }, Task("code"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Trail.String(), "c#1 fallback permanent/400 t=0ms, a#1 ok t=0ms"; got != want {
		t.Errorf("trail %s, want %s", got, want)
	}
	if res.Route != r.rt.Line || res.Provider != "a" {
		t.Errorf("route %q provider %q", res.Route, res.Provider)
	}
	if provs["b"].count() != 0 {
		t.Error("a hop the router left out was called")
	}
	if len(r.asked) != 1 || r.asked[0].Task != "code" || len(r.asked[0].Hops) != 3 || r.asked[0].Request == nil {
		t.Errorf("the router was asked %+v", r.asked)
	}
	want := []doneCall{{rt: r.rt, provider: "a", trail: res.Trail.String()}}
	if diff := cmp.Diff(want, r.done, cmp.AllowUnexported(doneCall{}), cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
		t.Errorf("Done (-want +got):\n%s", diff)
	}
	if len(commits) != 1 || commits[0].Route != r.rt.Line || commits[0].Provider != "a" {
		t.Errorf("commits %+v", commits)
	}
	if got := TrailLine(res.Route, res.Trail); got != "route strategy=test order=c,a; c#1 fallback permanent/400 t=0ms, a#1 ok t=0ms" {
		t.Errorf("TrailLine %q", got)
	}
}

// TestRouterLeavesNothing: a Route with no hop ends the Run at once with an
// ExhaustedError whose Last is the Router's reason (or no_route), and no
// provider is called.
func TestRouterLeavesNothing(t *testing.T) {
	t.Parallel()
	budget := &sdk.Error{Class: sdk.ClassQuotaExhausted, Code: "budget_exhausted", Message: "every provider is over its budget"}
	for _, tc := range []struct {
		name      string
		rt        Route
		wantClass sdk.Class
		wantCode  string
	}{
		{"the router's reason", Route{Line: "route order=-", Empty: budget}, sdk.ClassQuotaExhausted, "budget_exhausted"},
		{"no reason given", Route{Line: "route order=-"}, sdk.ClassPermanent, CodeNoRoute},
		{"only bad indexes", Route{Order: []int{7, -1}}, sdk.ClassPermanent, CodeNoRoute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := &fixedRouter{rt: tc.rt}
			c, provs := routedChain(t, newFakeClock(), r, nil)
			res, err := c.Run(context.Background(), userRequest("hello"), &recorder{}, nil)
			var ee *ExhaustedError
			if !errors.As(err, &ee) || sdk.ClassOf(err) != tc.wantClass {
				t.Fatalf("err %v (class %q), want an ExhaustedError of class %s", err, sdk.ClassOf(err), tc.wantClass)
			}
			var se *sdk.Error
			if !errors.As(err, &se) || se.Code != tc.wantCode {
				t.Errorf("code of %v, want %s", err, tc.wantCode)
			}
			for name, p := range provs {
				if p.count() != 0 {
					t.Errorf("%s was called", name)
				}
			}
			if len(res.Trail) != 0 || res.Route != tc.rt.Line || len(r.done) != 1 || r.done[0].err != err {
				t.Errorf("result %+v, done %+v", res, r.done)
			}
		})
	}
}

// TestAttemptFirstToken: each attempt records when its first content came,
// buffered or not, for a Router that measures latency.
func TestAttemptFirstToken(t *testing.T) {
	t.Parallel()
	for _, buffered := range []bool{false, true} {
		clk := newFakeClock()
		var opts []RunOption
		if buffered {
			opts = append(opts, Buffered(0))
		}
		r := &fixedRouter{rt: Route{Order: []int{0, 1}}}
		c, _ := routedChain(t, clk, r, map[string][][]step{
			"a": {{start("a-1"), advance(clk, 300*time.Millisecond), fail(classErr(sdk.ClassTransient, 503, 0))}},
			"b": {{start("b-1"), advance(clk, 120*time.Millisecond), text("hi"), advance(clk, time.Second), finish(sdk.FinishStop)}},
		})
		c.Policy.Attempts = 1
		res, err := c.Run(context.Background(), userRequest("hello"), &recorder{}, nil, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if got := []time.Duration{res.Trail[0].FirstToken, res.Trail[1].FirstToken}; got[0] != 0 || got[1] != 120*time.Millisecond {
			t.Errorf("buffered=%v: first tokens %v, want [0 120ms]", buffered, got)
		}
	}
}
