package chain

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/axonhq/axon/sdk"
)

// Generator is the one ability a hop needs. Every sdk.Provider, in
// production a gRPC client to a plugin process, is one. Generate sends its
// events one at a time, as sdk.Sink requires of an ordered stream.
type Generator interface {
	Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error
}

var _ Generator = sdk.Provider(nil)

// Hop is one provider of a chain.
type Hop struct {
	Name     string // the provider block's name: trail, pinning, x-axon-provider
	Provider Generator
	// Model is the model the provider block configures. It replaces
	// Request.Model in the hop's copy of the request, and is reported as
	// the answering model when the provider's EventStart names none.
	Model string
	// ContextWindow is the model's window in tokens, 0 when unknown. After
	// a context_overflow the chain skips hops whose known window is not
	// larger than the largest known window that overflowed; hops with an
	// unknown window are still tried, since the provider rejects an
	// oversized prompt quickly and before billing it.
	ContextWindow int64
	// FirstToken and Idle, when not zero, replace the chain policy's
	// timeouts for this hop (a local model loading from an SD card needs
	// longer than a hosted one).
	FirstToken, Idle time.Duration
	// Prefill says the hop continues a trailing assistant message (the
	// plugin's Info.Prefill, or the provider block's prefill): when a
	// streamed answer breaks off after its text reached the client, the
	// chain may ask this hop to carry it on (see Run).
	Prefill bool
	// PrefillFunc, when not nil, is asked instead of Prefill, only when a
	// continuation needs the answer: the daemon reads the plugin's Info
	// there, so a plugin not yet started is not started for it earlier.
	PrefillFunc func(context.Context) bool
	// Output says the hop's upstream guarantees a strict response schema
	// (the plugin's Info.Output, or the provider block's
	// structured_output): a request whose Output is Strict goes only to
	// such a hop, and skips the others.
	Output bool
	// OutputFunc, when not nil, is asked instead of Output, only when a
	// strict request needs the answer (as PrefillFunc).
	OutputFunc func(context.Context) bool
}

// prefill reports whether h takes a prefill.
func (h Hop) prefill(ctx context.Context) bool {
	if h.PrefillFunc != nil {
		return h.PrefillFunc(ctx)
	}
	return h.Prefill
}

// output reports whether h guarantees a strict response schema.
func (h Hop) output(ctx context.Context) bool {
	if h.OutputFunc != nil {
		return h.OutputFunc(ctx)
	}
	return h.Output
}

// mayPrefill reports whether h could take a prefill, without asking.
func (h Hop) mayPrefill() bool { return h.Prefill || h.PrefillFunc != nil }

// Commit names the hop whose answer is about to reach the client. Run
// passes it to its commit callback once at most, just before that hop's
// first content event goes to out: on the provider's goroutine for a
// streamed Run, on Run's own once the answer is complete for a Buffered
// one. The front door names the provider in its headers from it.
type Commit struct {
	Provider string
	Model    string // what the hop's EventStart reported, else Hop.Model
	Trail    Trail  // the attempts before this one
	Route    string // the Router's decision line; "" when the chain has no Router
}

// Chain is an ordered list of hops tried one at a time. A Chain is not
// modified by Run, so one value may serve concurrent calls.
type Chain struct {
	Name     string
	Hops     []Hop
	Policy   Policy
	Observer Observer // optional
	Clock    Clock    // optional: nil is the system clock
	Rand     Rand     // optional: nil is math/rand/v2; spreads retry waits (Jitter)
	Router   Router   // optional: nil tries the hops as listed
}

// RunOption changes how one Run delivers its answer.
type RunOption func(*runOptions)

type runOptions struct {
	buffered bool
	limit    int64        // content bytes a buffered answer may hold; <= 0: no bound
	task     string       // the task hint for the Router
	start    time.Time    // when Run began, before routing
	output   *outputCheck // nil: the request sets no Output
}

// Buffered is the Run option of a client that takes the answer whole (a
// non-streaming request): nothing is sent to out, and the commit callback
// is not called, until the answering hop has finished cleanly. So every
// failure of a hop, whenever it comes (a stream cut, stalled or malformed
// after some tokens), is retried or falls back exactly like a failure
// before the first token, and a Buffered Run never returns a
// *CommittedError for a provider's failure: only the client sink's own
// refusal is one. The first-token and idle timers run as for a stream.
//
// limit bounds the content bytes held back (text, reasoning, tool calls;
// <= 0: no bound). An answer that outgrows it commits there and flows on
// to out as a stream would, so memory stays bounded and the client sink's
// own limit on a whole answer decides what the client is told.
func Buffered(limit int64) RunOption {
	return func(o *runOptions) { o.buffered, o.limit = true, limit }
}

// Result describes a Run. Run returns one even when it fails, for the trail.
type Result struct {
	Chain string
	// Provider and Model name the hop that answered, or, after a
	// CommittedError, the hop whose answer broke off. Model is what the
	// provider's EventStart reported, else the hop's configured Model.
	Provider string
	Model    string
	Usage    *sdk.Usage // merged from the hop's usage events; nil when none
	Finish   sdk.FinishReason
	Trail    Trail
	// Elapsed is the whole Run. FirstContent is from its start until the
	// answer's first content went to out: zero when none did, and on a
	// Buffered Run, whose content goes out only once complete.
	Elapsed, FirstContent time.Duration
	// Route is the Router's decision line (TrailLine renders it with the
	// trail); "" when the chain has no Router.
	Route string
}

// Validate reports a chain Run cannot use: no hops, a hop without a name
// or provider, or two hops of the same name.
func (c *Chain) Validate() error {
	if len(c.Hops) == 0 {
		return fmt.Errorf("chain %q has no providers", c.Name)
	}
	for i, h := range c.Hops {
		if h.Name == "" || h.Provider == nil {
			return fmt.Errorf("chain %q: provider %d has no name or no plugin", c.Name, i+1)
		}
		for _, prev := range c.Hops[:i] {
			if prev.Name == h.Name {
				return fmt.Errorf("chain %q lists provider %q twice", c.Name, h.Name)
			}
		}
	}
	return nil
}

// Run sends req through the chain and streams the answer of the first hop
// that succeeds into out (with Buffered: sends it once it is complete).
// Each attempt gets its own deep copy of req; req itself is never
// modified. commit, when not nil, is told which hop answers just before its
// first content reaches out (see Commit); it must not block.
//
// A request with Output is held to it: a strict schema skips the hops that
// cannot guarantee it (Hop.Output), and every answer is checked before any
// of it reaches out, as a Buffered Run would hold it even for a streaming
// client; one not of the asked form fails its hop (permanent) and the
// chain falls back. A schema that does not compile fails the Run before
// any hop, with status 400.
//
// On success the last event sent to out is EventFinish, and nothing is sent
// to out after it or after Run returns.
//
// On failure the error is an *ExhaustedError (no answer, nothing sent to
// out), a *CommittedError (the answer broke off after content reached
// out), or the caller's context error wrapped (ctx ended before anything
// reached out). The returned Result is never nil.
func (c *Chain) Run(ctx context.Context, req *sdk.Request, out sdk.Sink, commit func(Commit), opts ...RunOption) (*Result, error) {
	res := &Result{Chain: c.Name}
	var o runOptions
	for _, opt := range opts {
		opt(&o)
	}
	if err := c.Validate(); err != nil {
		return res, err
	}
	if c.Observer != nil {
		c.Observer.OnTurnStart(c.Name)
	}
	var err error
	if o.output, err = compileOutput(req.Output); err != nil {
		res.Trail = Trail{}
		err = &ExhaustedError{Chain: c.Name, Trail: res.Trail, Last: err}
	} else if c.Router == nil {
		err = c.run(ctx, req, out, commit, o, res)
	} else {
		err = c.runRouted(ctx, req, out, commit, o, res)
	}
	if c.Observer != nil {
		c.Observer.OnTurnEnd(c.Name, res, err)
	}
	return res, err
}

func (c *Chain) run(ctx context.Context, req *sdk.Request, out sdk.Sink, commit func(Commit), o runOptions, res *Result) error {
	p := c.Policy.withDefaults()
	clk := c.Clock
	if clk == nil {
		clk = SystemClock()
	}
	rnd := c.Rand
	if rnd == nil {
		rnd = systemRand{}
	}
	e := env{policy: p, clock: clk, rand: rnd, opts: o, start: o.start}
	if e.start.IsZero() {
		e.start = clk.Now()
	}
	defer func() { res.Elapsed = clk.Now().Sub(e.start) }()
	res.Trail = make(Trail, 0, len(c.Hops))
	var last error
	overflowAt := int64(-1) // the largest known window that overflowed; -1 while none did
	strict := req.Output != nil && req.Output.Strict
	for i, hop := range c.Hops {
		if hop.ContextWindow > 0 && hop.ContextWindow <= overflowAt {
			c.record(res, Attempt{Provider: hop.Name, Outcome: OutcomeSkip})
			continue
		}
		if strict && !hop.output(ctx) {
			c.record(res, Attempt{Provider: hop.Name, Outcome: OutcomeSkip, Code: CodeNoStructuredOutput})
			continue
		}
		done, err := c.runHop(ctx, e, i, req, out, commit, res)
		if done {
			return err
		}
		last = err
		if sdk.ClassOf(err) == sdk.ClassContextOverflow {
			overflowAt = max(overflowAt, hop.ContextWindow)
		}
	}
	if last == nil { // every hop was skipped: none can guarantee the schema
		last = noStructuredOutputError()
	}
	return &ExhaustedError{Chain: c.Name, Trail: res.Trail, Last: last}
}

// env is what every attempt of one Run shares.
type env struct {
	policy Policy // defaults applied
	clock  Clock
	rand   Rand
	opts   runOptions
	start  time.Time // when Run began
}

// runHop tries hop, retrying transient failures as the policy allows. done
// reports that Run is over with err (nil: the hop answered); otherwise err
// is the hop's last failure and the chain moves on.
func (c *Chain) runHop(ctx context.Context, e env, i int, req *sdk.Request, out sdk.Sink, commit func(Commit), res *Result) (done bool, err error) {
	p, clk := e.policy, e.clock
	hop := c.Hops[i]
	var wait time.Duration
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return true, fmt.Errorf("chain %q: %w", c.Name, err)
		}
		if wait > 0 {
			if err := clk.Sleep(ctx, wait); err != nil {
				return true, fmt.Errorf("chain %q: %w", c.Name, err)
			}
		}
		r := c.try(ctx, e, hop, req, out, commit, res, "", "")
		a := r.attempt
		a.Attempt, a.Wait = n, wait
		switch {
		case r.err == nil:
			a.Outcome = OutcomeOK
			c.record(res, a)
			return true, nil
		case r.committed && c.continuable(ctx, e, i, r):
			a.Outcome, a.Cut = OutcomeCut, int64(len(r.text))
			c.record(res, a)
			return true, c.continueAfter(ctx, func(h Hop, mode, sent string) tried {
				return c.try(ctx, e, h, req, out, nil, res, mode, sent)
			}, i, r, res)
		case r.committed:
			a.Outcome = OutcomeStop
			c.record(res, a)
			return true, &CommittedError{Chain: c.Name, Provider: hop.Name, Trail: res.Trail, Err: r.err}
		case r.canceled:
			a.Outcome = OutcomeStop
			c.record(res, a)
			return true, fmt.Errorf("chain %q: %w", c.Name, r.err)
		case a.Class == sdk.ClassContentFilter && !p.AllowContentFilterFallback:
			a.Outcome = OutcomeStop
			c.record(res, a)
			return true, &ExhaustedError{Chain: c.Name, Trail: res.Trail, Last: r.err}
		}
		retry := false
		if a.Class == sdk.ClassTransient && !statuslessTimeout(a, r.err) {
			wait, retry = p.retryWait(n, a.RetryAfter)
			if retry {
				wait = jitter(wait, a.RetryAfter > 0, e.rand.Float64(), p.MaxRetryAfter)
			}
		}
		if !retry {
			a.Outcome = OutcomeFallback
			c.record(res, a)
			return false, r.err
		}
		a.Outcome = OutcomeRetry
		c.record(res, a)
	}
}

// statuslessTimeout reports a deadline that fired before the upstream gave
// any status: the egress's connect, response-header or total timeout, or
// the engine's first-token or idle timer. The same hop is not tried again:
// a hop that accepts a connection and says nothing would spend the
// client's whole budget on one more silent wait, so the chain moves on at
// once. A timeout the upstream reported itself (a 504, a 408) carries a
// status and is retried like any transient failure.
func statuslessTimeout(a Attempt, err error) bool {
	return a.Status == 0 && errors.Is(err, sdk.ErrTimeout)
}

func (c *Chain) record(res *Result, a Attempt) {
	res.Trail = append(res.Trail, a)
	if c.Observer != nil {
		c.Observer.OnHop(c.Name, a)
	}
}

// tried is what one call of one hop came to.
type tried struct {
	attempt   Attempt // Provider, failure fields and Latency filled in
	err       error   // nil: the hop answered
	committed bool    // content had reached the client
	canceled  bool    // the caller's context ended
	client    bool    // the client sink refused an event
	text      string  // when tracked: the text this attempt forwarded to the client
	tooled    bool    // a tool call was forwarded
	reasoned  bool    // a reasoning delta was forwarded
}

// try runs one attempt of hop. On success, or once content has reached the
// client, it fills res with the hop's answer. With mode set (Continue*), the
// attempt continues an answer whose text sent the client already has: no
// commit callback, no second EventStart, and what it forwards is spliced
// into the open stream.
func (c *Chain) try(ctx context.Context, e env, hop Hop, req *sdk.Request, out sdk.Sink, commit func(Commit), res *Result, mode, sent string) tried {
	p, clk := e.policy, e.clock
	hctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if hop.FirstToken != 0 {
		p.FirstToken = hop.FirstToken
	}
	if hop.Idle != 0 {
		p.Idle = hop.Idle
	}
	s := &hopStream{ctx: ctx, out: out, clock: clk, policy: p, cancel: cancel, buffered: e.opts.buffered, bufLimit: e.opts.limit}
	if e.opts.output != nil {
		// The answer is checked before the client sees any of it, so it is
		// held back whole, as for a Buffered Run, even for a streaming client.
		s.buffered, s.mustHold = true, true
		if !e.opts.buffered {
			s.bufLimit = DefaultOutputLimit
		}
	}
	hreq := dropForeignReasoning(cloneRequest(req, hop.Model), hop.Name)
	if mode != "" {
		s.cont, s.track = newContinuation(mode, sent), true
		if mode == ContinuePrefill {
			hreq = withPrefill(hreq, sent)
		}
	} else {
		s.track = !s.buffered && c.prefillAfter(hop.Name)
	}
	if obs := c.Observer; mode == "" && (obs != nil || commit != nil) {
		s.onCommit = func() {
			if !e.opts.buffered { // a streaming client's; a checked answer's comes once it is whole
				res.FirstContent = clk.Now().Sub(e.start)
			}
			if obs != nil {
				obs.OnFirstContent(c.Name, hop.Name)
			}
			if commit != nil {
				commit(Commit{Provider: hop.Name, Model: cmp.Or(s.model, hop.Model), Trail: slices.Clone(res.Trail)})
			}
		}
	}
	start := clk.Now()
	s.start()
	genErr := hop.Provider.Generate(hctx, hreq, s)
	s.end()
	defer func() { recycleHeld(s.held) }() // what a failed attempt held back

	r := tried{committed: s.committed, text: string(s.text), tooled: s.tooled, reasoned: s.reasoned}
	var code string
	switch {
	case s.clientErr != nil:
		r.err, r.committed, r.client, code = s.clientErr, true, true, CodeClient
	case s.contErr != nil:
		r.err, code = s.contErr, CodeMismatch
	case s.holdErr != nil:
		r.err = s.holdErr
	case genErr == nil && s.finished && s.cont != nil && !s.cont.passed:
		r.err, code = mismatchError(), CodeMismatch // it ended before reaching the text sent
	case (genErr != nil || !s.finished) && ctx.Err() != nil:
		r.err, r.canceled, code = ctx.Err(), true, CodeCanceled
	case genErr == nil && s.finished:
		if !s.started && s.finish.Finish == sdk.FinishContentFilter && p.AllowContentFilterFallback {
			r.err, code = refusalError(), CodeRefusal
			break
		}
		if err := e.opts.output.checkAnswer(s); err != nil {
			r.err = err
			break
		}
		if err := s.finishClean(); err != nil {
			r.err, r.committed, r.client, code = err, true, true, CodeClient
		}
	case s.timeout != nil:
		r.err, code = s.timeout, s.timeoutCode
	case genErr == nil:
		r.err, code = incompleteError(), CodeIncomplete
	case sdk.ClassOf(genErr) == "":
		r.err, code = unclassified(genErr), CodeUnclassified
	default:
		r.err = genErr
	}
	if r.err == nil || r.committed {
		res.Provider, res.Model = hop.Name, cmp.Or(s.model, hop.Model)
		res.Usage, res.Finish = s.usage, s.finish.Finish
	}

	r.attempt = Attempt{Provider: hop.Name, Latency: clk.Now().Sub(start), Committed: r.err != nil && r.committed, Skipped: s.finish.Skipped}
	if !s.firstAt.IsZero() {
		r.attempt.FirstToken = s.firstAt.Sub(start)
	}
	if r.err != nil {
		var e *sdk.Error
		if errors.As(r.err, &e) {
			r.attempt.Class, r.attempt.Code, r.attempt.Status, r.attempt.RetryAfter = e.Class, e.Code, e.Status, e.RetryAfter
		}
		r.attempt.Code = cmp.Or(code, r.attempt.Code)
	}
	return r
}

// prefillAfter reports a hop after the one named that takes a prefill: only
// then does a stream record the text it forwards.
func (c *Chain) prefillAfter(name string) bool {
	for i, h := range c.Hops {
		if h.Name == name {
			for _, l := range c.Hops[i+1:] {
				if l.mayPrefill() {
					return true
				}
			}
			return false
		}
	}
	return false
}
