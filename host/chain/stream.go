package chain

import (
	"context"
	"sync"
	"time"

	"github.com/axonhq/axon/sdk"
)

// hopStream is the sdk.Sink one attempt's provider writes to.
//
// Before the first content event it holds back EventStart and EventUsage,
// so a hop that fails early leaves no trace at the client; the first
// content event commits the attempt and flushes them. EventFinish is held
// until Generate has returned nil, so a provider that sends a finish and
// then reports a failure never shows the client a clean end. hopStream
// also runs the first-token and idle timers, and refuses events once the
// attempt is over, so a provider goroutine that outlives its call cannot
// write into a later hop's answer.
//
// Buffered (a client that takes the answer whole), it holds back every
// event, content too, and commits only in finishClean, once Generate has
// returned nil: a hop that fails at any point leaves no trace.
type hopStream struct {
	ctx      context.Context // the caller's: only it bounds writes to the client
	out      sdk.Sink
	clock    Clock
	policy   Policy
	cancel   context.CancelCauseFunc // ends the attempt's context
	onCommit func()                  // nil, or told once before the first content is forwarded
	buffered bool                    // hold everything until the clean finish
	bufLimit int64                   // content bytes buffered may hold; <= 0: no bound
	bufBytes int64                   // content bytes held so far
	mustHold bool                    // buffered may not give up: the answer is checked (Request.Output)
	track    bool                    // record the text forwarded, for a continuation
	cont     *continuation           // nil, or this attempt continues a broken-off answer

	mu          sync.Mutex
	held        []sdk.Event
	heldBuf     [2]sdk.Event // room for the usual start and usage
	batch       []sdk.Event  // SendBatch's events for the client, reused
	started     bool         // a content event arrived: the idle timer runs, not the first-token one
	committed   bool         // content was forwarded to the client
	finished    bool
	finish      sdk.Event
	model       string
	usage       *sdk.Usage
	timeout     *sdk.Error // set when a timer cut the attempt
	timeoutCode string
	clientErr   error      // set when the client sink refused an event
	contErr     *sdk.Error // set when a regenerated continuation did not match the text sent
	holdErr     *sdk.Error // set when an answer that must be held whole outgrew bufLimit
	text        []byte     // with track: the text forwarded to the client by this attempt
	tooled      bool       // a tool call was forwarded, or has begun (EventToolCallBegin)
	reasoned    bool       // a reasoning delta was forwarded
	done        bool       // Generate returned
	forwarding  bool       // an event is being written to the client
	last        time.Time  // when the stream last went back to waiting on the provider
	firstAt     time.Time  // when the first content event arrived; zero while none has
	// timer is the first-token timer until the commit, then the idle timer.
	timer Timer
}

var _ sdk.BatchSink = (*hopStream)(nil)

// start arms the first-token timer; call it before Generate.
func (s *hopStream) start() {
	s.mu.Lock()
	s.held = s.heldBuf[:0]
	if s.buffered {
		if p, ok := heldEvents.Get().(*[]sdk.Event); ok {
			s.held = *p // a buffered answer holds every event: start with room
		}
	}
	if s.policy.FirstToken > 0 {
		s.timer = s.clock.AfterFunc(s.policy.FirstToken, s.expired)
	}
	s.mu.Unlock()
}

// Send implements sdk.Sink for the provider.
func (s *hopStream) Send(_ context.Context, ev sdk.Event) error {
	s.mu.Lock()
	ev, forward, commit, flush, err := s.accept(ev)
	if err != nil || !forward {
		s.mu.Unlock()
		return err
	}
	s.forwarding = true
	s.mu.Unlock()

	if commit && s.onCommit != nil {
		s.onCommit()
	}
	err = s.forward(flush, ev)

	s.mu.Lock()
	s.forwarded(err)
	if err == nil {
		s.sent(ev)
	}
	s.mu.Unlock()
	return err
}

// SendBatch implements sdk.BatchSink for the provider: the events are taken
// as Send takes them one by one, and what they forward goes to the client
// in one batch, so the front door writes it with one flush. Only events
// that arrived together come as a batch; none is held back for one.
func (s *hopStream) SendBatch(_ context.Context, evs []sdk.Event) error {
	s.mu.Lock()
	fwd := s.batch[:0]
	if fwd == nil {
		if p, ok := heldEvents.Get().(*[]sdk.Event); ok {
			fwd = *p
		}
	}
	s.batch = nil // in use until the batch is forwarded
	commit := false
	var refused error
	for _, ev := range evs {
		ev, forward, c, flush, err := s.accept(ev)
		if err != nil {
			refused = err // the events before it still go out, as one by one
			break
		}
		if forward {
			commit = commit || c
			fwd = s.appendForward(fwd, flush, ev)
		}
	}
	if len(fwd) == 0 {
		s.batch = fwd
		s.mu.Unlock()
		return refused
	}
	s.forwarding = true
	s.mu.Unlock()

	if commit && s.onCommit != nil {
		s.onCommit()
	}
	err := sdk.SendBatch(s.ctx, s.out, fwd)

	s.mu.Lock()
	s.forwarded(err)
	if err == nil {
		for _, ev := range fwd {
			s.sent(ev)
		}
	}
	clear(fwd)
	s.batch = fwd[:0]
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return refused
}

// accept applies one event from the provider. It reports whether ev (as a
// continuation may have shortened it) goes to the client now, and, when it
// commits the attempt, that it does and the held events that go first.
// Call with s.mu held.
func (s *hopStream) accept(ev sdk.Event) (_ sdk.Event, forward, commit bool, flush []sdk.Event, _ error) {
	if err := s.refusal(); err != nil {
		return ev, false, false, nil, err
	}
	switch ev.Type {
	case sdk.EventFinish:
		s.finished, s.finish = true, ev
		return ev, false, false, nil, nil
	case sdk.EventToolCallBegin:
		// Never forwarded: it only rules out continuing this answer.
		s.tooled = true
		return ev, false, false, nil, nil
	case sdk.EventStart:
		if ev.Model != "" {
			s.model = ev.Model
		}
	case sdk.EventUsage:
		s.usage = mergeUsage(s.usage, ev.Usage)
	}
	if !s.started {
		if !isContent(ev.Type) {
			s.held = append(s.held, ev)
			return ev, false, false, nil, nil
		}
		s.started, s.firstAt = true, s.clock.Now()
		switch {
		case s.policy.Idle <= 0:
			if s.timer != nil {
				s.timer.Stop()
			}
		case s.timer != nil:
			s.timer.Reset(s.policy.Idle)
		default:
			s.timer = s.clock.AfterFunc(s.policy.Idle, s.expired)
		}
	}
	if s.cont != nil {
		if !isContent(ev.Type) && !s.committed {
			s.held = append(s.held, ev)
			return ev, false, false, nil, nil
		}
		var keep bool
		var err *sdk.Error
		ev, keep, err = s.cont.admit(ev)
		if err != nil {
			s.contErr = err
			s.cancel(err)
			return ev, false, false, nil, err
		}
		if !keep {
			if s.policy.Idle > 0 {
				s.last = s.clock.Now()
			}
			return ev, false, false, nil, nil
		}
	}
	if s.buffered {
		s.bufBytes += contentBytes(ev)
		if s.bufLimit <= 0 || s.bufBytes <= s.bufLimit {
			s.held = append(s.held, ev)
			if s.policy.Idle > 0 {
				s.last = s.clock.Now()
			}
			return ev, false, false, nil, nil
		}
		if s.mustHold {
			s.holdErr = outputTooLargeError(s.bufLimit)
			s.cancel(s.holdErr)
			return ev, false, false, nil, s.holdErr
		}
		s.buffered = false // outgrown: commit here and flow on as a stream
	}
	if !s.committed {
		s.committed, commit = true, true
		flush, s.held = s.held, nil
	}
	return ev, true, commit, flush, nil
}

// forwarded notes that a write to the client has returned err. Call with
// s.mu held.
func (s *hopStream) forwarded(err error) {
	s.forwarding = false
	if s.policy.Idle > 0 {
		s.last = s.clock.Now()
	}
	if err != nil && s.clientErr == nil {
		s.clientErr = err
		s.cancel(err)
	}
}

// sent notes a content event that reached the client. Call with s.mu held.
func (s *hopStream) sent(ev sdk.Event) {
	switch ev.Type {
	case sdk.EventTextDelta:
		if s.track {
			s.text = append(s.text, ev.Text...)
		}
	case sdk.EventToolCall:
		s.tooled = true
	case sdk.EventReasoningDelta:
		s.reasoned = true
	}
}

// refusal is why an event can no longer be accepted, nil while it can.
// Call with s.mu held.
func (s *hopStream) refusal() error {
	switch {
	case s.done:
		return lateEventError()
	case s.timeout != nil:
		return s.timeout
	case s.clientErr != nil:
		return s.clientErr
	case s.contErr != nil:
		return s.contErr
	case s.holdErr != nil:
		return s.holdErr
	case s.finished:
		return afterFinishError()
	}
	return nil
}

func (s *hopStream) forward(flush []sdk.Event, ev sdk.Event) error {
	for _, e := range flush {
		if e.Type == sdk.EventStart && s.cont != nil {
			continue // the client's stream started with the answer this one continues
		}
		if err := s.out.Send(s.ctx, e); err != nil {
			return err
		}
	}
	return s.out.Send(s.ctx, ev)
}

// appendForward is forward's order, appended to a batch.
func (s *hopStream) appendForward(fwd, flush []sdk.Event, ev sdk.Event) []sdk.Event {
	for _, e := range flush {
		if e.Type == sdk.EventStart && s.cont != nil {
			continue
		}
		fwd = append(fwd, e)
	}
	return append(fwd, ev)
}

// expired runs when the timer fires: before the commit it is the
// first-token timeout. After it, it is the idle timeout, checked lazily:
// Send only records when it went back to waiting, and the timer re-arms
// itself for whatever is left, so a busy stream costs no timer operation
// per event.
func (s *hopStream) expired() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || s.finished || s.timeout != nil || s.clientErr != nil || s.contErr != nil || s.holdErr != nil {
		return
	}
	if !s.started {
		s.timeout, s.timeoutCode = timeoutError("first-token", s.policy.FirstToken), CodeFirstTokenTimeout
		s.cancel(s.timeout)
		return
	}
	if s.forwarding {
		s.timer.Reset(s.policy.Idle) // the client is slow, not the provider
		return
	}
	if quiet := s.clock.Now().Sub(s.last); quiet < s.policy.Idle {
		s.timer.Reset(s.policy.Idle - quiet)
		return
	}
	s.timeout, s.timeoutCode = timeoutError("stream idle", s.policy.Idle), CodeIdleTimeout
	s.cancel(s.timeout)
}

// end marks the attempt over: later events are refused and the timers
// stopped. After end, only the caller's goroutine touches s.
func (s *hopStream) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	if s.timer != nil {
		s.timer.Stop()
	}
	recycleHeld(s.batch) // no batch is taken after the attempt
	s.batch = nil
}

// finishClean forwards what is still held and the finish event, once
// Generate has returned nil; a buffered answer with content commits here.
// Call after end.
func (s *hopStream) finishClean() error {
	held := s.held
	s.held = nil
	if s.buffered && s.started {
		s.committed = true
		if s.onCommit != nil {
			s.onCommit()
		}
	}
	err := s.forward(held, s.finish)
	recycleHeld(held)
	return err
}

// heldEvents are the slices buffered answers hold their events in, and
// SendBatch its batches, reused: an answer of a few dozen events would
// otherwise grow one four times over.
var heldEvents sync.Pool

// recycleHeld gives evs to the next buffered answer; after the attempt
// is over, nobody else has it (a sink takes events by value).
func recycleHeld(evs []sdk.Event) {
	if cap(evs) < 8 || cap(evs) > 1024 { // heldBuf's own room, or a rare giant
		return
	}
	clear(evs)
	evs = evs[:0]
	heldEvents.Put(&evs)
}

// contentBytes is what ev adds to an answer held back, counted as the front
// door counts a whole answer.
func contentBytes(ev sdk.Event) int64 {
	n := len(ev.Text) + len(ev.Signature) + len(ev.Redacted)
	if ev.ToolCall != nil {
		n += len(ev.ToolCall.ID) + len(ev.ToolCall.Name) + len(ev.ToolCall.Input)
	}
	return int64(n)
}

func isContent(t sdk.EventType) bool {
	switch t {
	case sdk.EventTextDelta, sdk.EventReasoningDelta, sdk.EventToolCall:
		return true
	}
	return false
}

// mergeUsage lays the fields u reports over acc: providers may report input
// tokens early and output tokens at the end. Absent stays absent.
func mergeUsage(acc, u *sdk.Usage) *sdk.Usage {
	if u == nil {
		return acc
	}
	m := &sdk.Usage{}
	if acc != nil {
		*m = *acc
	}
	if u.InputTokens != nil {
		m.InputTokens = sdk.Tokens(*u.InputTokens)
	}
	if u.OutputTokens != nil {
		m.OutputTokens = sdk.Tokens(*u.OutputTokens)
	}
	if u.CacheReadTokens != nil {
		m.CacheReadTokens = sdk.Tokens(*u.CacheReadTokens)
	}
	if u.CacheWriteTokens != nil {
		m.CacheWriteTokens = sdk.Tokens(*u.CacheWriteTokens)
	}
	if u.ReasoningTokens != nil {
		m.ReasoningTokens = sdk.Tokens(*u.ReasoningTokens)
	}
	return m
}
