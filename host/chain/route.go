package chain

import (
	"context"

	"github.com/axonhq/axon/sdk"
)

// Router decides, for each Run, the order in which the chain's hops are
// tried and which are left out: tiers, task fit, strategies and budgets
// are the Router's policy (host/route), while retrying and falling back
// along that order stay Run's. A chain without a Router tries its hops as
// listed. Pin does not carry the Router over: a pinned chain gets the
// Router its caller gives it.
type Router interface {
	// Route is called once per Run, on Run's goroutine, before any hop is
	// tried. It may take a moment (a classifier's call) and must end when
	// ctx does.
	Route(ctx context.Context, q Routing) Route
	// Done is told how the Run that rt routed ended, on Run's goroutine,
	// just before the Observer's OnTurnEnd. It must return at once.
	Done(rt Route, res *Result, err error)
}

// Routing is what a Router decides on. Neither the hops nor the request
// may be modified.
type Routing struct {
	Hops    []Hop // the chain's, as listed
	Request *sdk.Request
	Task    string // the request's task hint ("code"); "" when it gave none
}

// Route is a Router's decision for one Run.
type Route struct {
	// Order lists indexes of Routing.Hops in the order Run tries them; a
	// hop not listed is not tried. Run retries and falls back along Order
	// as along the hops of a chain without a Router.
	Order []int
	// Line is the decision on one line of ASCII for the trail:
	//	route task=code strategy=rotate cursor=2 order=claude,glm,ollama gate=off paid=skipped(gpt4)
	Line string
	// Empty, when Order is empty, says why no hop may be tried: Run returns
	// it as its ExhaustedError's Last. nil: a permanent no_route error.
	Empty error
	// Note is the Router's own record of the decision, given back to Done.
	Note any
}

// CodeNoRoute is the code of the error a Run returns when its Router left
// it no hop to try and said nothing of why.
const CodeNoRoute = "no_route"

// Task is the Run option that passes the request's task hint ("code",
// from x-axon-task, metadata.task or `axon ask --task`) to the Router.
func Task(task string) RunOption {
	return func(o *runOptions) { o.task = task }
}

// runRouted is run along the order c.Router chose. The time spent routing
// counts in the Run's Elapsed and FirstContent.
func (c *Chain) runRouted(ctx context.Context, req *sdk.Request, out sdk.Sink, commit func(Commit), o runOptions, res *Result) error {
	clk := c.Clock
	if clk == nil {
		clk = SystemClock()
	}
	o.start = clk.Now()
	rt := c.Router.Route(ctx, Routing{Hops: c.Hops, Request: req, Task: o.task})
	res.Route = rt.Line
	rc := c.routed(rt)
	var err error
	if len(rc.Hops) == 0 {
		last := rt.Empty
		if last == nil {
			last = noRouteError()
		}
		res.Trail = Trail{}
		res.Elapsed = clk.Now().Sub(o.start)
		err = &ExhaustedError{Chain: c.Name, Trail: res.Trail, Last: last}
	} else {
		if commit != nil {
			inner := commit
			commit = func(cm Commit) {
				cm.Route = rt.Line
				inner(cm)
			}
		}
		err = rc.run(ctx, req, out, commit, o, res)
	}
	c.Router.Done(rt, res, err)
	return err
}

// routed is c with its hops in rt's order. Indexes out of range or listed
// twice are dropped.
func (c *Chain) routed(rt Route) *Chain {
	rc := *c
	rc.Hops = make([]Hop, 0, len(rt.Order))
	seen := make([]bool, len(c.Hops))
	for _, i := range rt.Order {
		if i < 0 || i >= len(c.Hops) || seen[i] {
			continue
		}
		seen[i] = true
		rc.Hops = append(rc.Hops, c.Hops[i])
	}
	return &rc
}

func noRouteError() *sdk.Error {
	return &sdk.Error{Class: sdk.ClassPermanent, Code: CodeNoRoute, Message: "routing left no provider to try"}
}

// TrailLine renders the trail of a Run for the x-axon-trail header and the
// turn log: the route line, "; ", then the attempts; just the attempts
// when the Run was not routed.
//
//	route strategy=rotate cursor=1 order=glm,ollama gate=off; glm#1 ok t=310ms
func TrailLine(route string, t Trail) string {
	if route == "" {
		return t.String()
	}
	if len(t) == 0 {
		return route
	}
	return route + "; " + t.String()
}
