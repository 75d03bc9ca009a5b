package session

import (
	"fmt"
	"slices"
	"time"

	"github.com/axonhq/axon/sdk"
)

// Status is where a run stands.
type Status string

const (
	StatusRunning  Status = "running"  // admitted and not ended; after a crash, resumed on the next open
	StatusPaused   Status = "paused"   // stopped resumably (RunPaused)
	StatusFinished Status = "finished" // ended for good (RunFinished)
)

// sessionState is a session rebuilt from its WAL: every run and, through
// them, the conversation. apply is the only way it changes, both on replay
// and for a live record, so a resumed session is the one that was running.
type sessionState struct {
	runs  []*runState
	byID  map[string]*runState
	byKey map[string]*runState
	last  uint64 // wal_seq of the last record applied
}

type runState struct {
	id        string
	start     RunStarted
	tools     map[string]*FrozenTool // by tool name
	startSeq  uint64
	endSeq    uint64 // seq of RunFinished; 0 while open
	haltSeq   uint64 // seq of the last RunFinished or RunPaused
	startedAt time.Time
	endedAt   time.Time
	status    Status
	end       *RunEnd
	pause     *RunPause
	steps     []*stepState
	usage     []UsageFact
	spent     spend
}

// stepState is one model step and what became of its tool calls.
type stepState struct {
	n       int
	seq     uint64
	message sdk.Message
	calls   []sdk.ToolCall
	intents map[string]ToolIntent
	results map[string]sdk.ToolResult
}

func newSessionState() *sessionState {
	return &sessionState{byID: map[string]*runState{}, byKey: map[string]*runState{}}
}

// open is the run that is running or paused, nil when none.
func (s *sessionState) open() *runState {
	if n := len(s.runs); n > 0 && s.runs[n-1].status != StatusFinished {
		return s.runs[n-1]
	}
	return nil
}

// apply folds the record at seq into the state. A record that does not fit
// (a second intent for one call, a result without a call) means the log
// was not written by this loop: the session refuses to open on it.
func (s *sessionState) apply(seq uint64, rec Record) error {
	if err := s.fold(seq, rec); err != nil {
		return fmt.Errorf("session: record %d (%s, run %s): %w", seq, rec.Type, rec.RunID, err)
	}
	s.last = seq
	return nil
}

func (s *sessionState) fold(seq uint64, rec Record) error {
	if rec.Type == RecRunStarted {
		return s.startRun(seq, rec)
	}
	r := s.byID[rec.RunID]
	if r == nil {
		return fmt.Errorf("no such run")
	}
	switch rec.Type {
	case RecModelStepFinished:
		return r.addStep(seq, rec)
	case RecToolDispatch:
		return r.addIntent(*rec.Intent)
	case RecToolResult:
		return r.addResult(*rec.Result)
	case RecRunFinished:
		if r.status == StatusFinished {
			return fmt.Errorf("run already finished")
		}
		r.status, r.end, r.pause, r.endSeq, r.haltSeq, r.endedAt = StatusFinished, rec.Finished, nil, seq, seq, rec.At
	case RecRunPaused:
		if r.status != StatusRunning {
			return fmt.Errorf("pause of a %s run", r.status)
		}
		r.status, r.pause, r.haltSeq = StatusPaused, rec.Paused, seq
	case RecRunResumed:
		if r.status != StatusPaused {
			return fmt.Errorf("resume of a %s run", r.status)
		}
		r.status, r.pause = StatusRunning, nil
	}
	return nil
}

func (s *sessionState) startRun(seq uint64, rec Record) error {
	if o := s.open(); o != nil {
		return fmt.Errorf("run %s is still %s", o.id, o.status)
	}
	st := rec.RunStarted
	if s.byID[rec.RunID] != nil || s.byKey[st.IdempotencyKey] != nil {
		return fmt.Errorf("run id or idempotency key used twice")
	}
	r := &runState{id: rec.RunID, start: *st, tools: map[string]*FrozenTool{}, startSeq: seq, startedAt: rec.At, status: StatusRunning}
	for i := range st.Tools {
		r.tools[st.Tools[i].Name] = &st.Tools[i]
	}
	s.runs = append(s.runs, r)
	s.byID[r.id], s.byKey[st.IdempotencyKey] = r, r
	return nil
}

func (r *runState) addStep(seq uint64, rec Record) error {
	m := rec.ModelStep
	if r.status != StatusRunning {
		return fmt.Errorf("model step of a %s run", r.status)
	}
	if m.Step != len(r.steps)+1 {
		return fmt.Errorf("model step %d after %d steps", m.Step, len(r.steps))
	}
	parts, err := decodeParts(m.Message)
	if err != nil {
		return err
	}
	st := &stepState{n: m.Step, seq: seq, message: sdk.Message{Role: sdk.RoleAssistant, Parts: parts},
		intents: map[string]ToolIntent{}, results: map[string]sdk.ToolResult{}}
	for _, p := range parts {
		if c, ok := p.(sdk.ToolCall); ok {
			st.calls = append(st.calls, c)
		}
	}
	r.steps = append(r.steps, st)
	var cost *float64
	if price, ok := r.start.price(m.Provider); ok {
		cost = price.cost(m.Usage)
	}
	r.spent.add(m.Usage, cost)
	fact := UsageFact{RunID: r.id, Seq: seq, Step: m.Step, At: rec.At, Chain: m.Chain, Provider: m.Provider, Model: m.Model, CostUSD: cost}
	if u := m.Usage; u != nil {
		fact.InputTokens, fact.OutputTokens, fact.CacheReadTokens, fact.CacheWriteTokens = u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens
	}
	r.usage = append(r.usage, fact)
	return nil
}

// lastStep is the run's current model step, nil before the first.
func (r *runState) lastStep() *stepState {
	if len(r.steps) == 0 {
		return nil
	}
	return r.steps[len(r.steps)-1]
}

func (r *runState) addIntent(in ToolIntent) error {
	st := r.lastStep()
	switch {
	case r.status != StatusRunning:
		return fmt.Errorf("intent in a %s run", r.status)
	case st == nil || st.n != in.Step || !st.hasCall(in.CallID):
		return fmt.Errorf("intent for call %s, not a call of the current step", in.CallID)
	case st.intended(in.CallID):
		return fmt.Errorf("second intent for call %s", in.CallID)
	}
	st.intents[in.CallID] = in
	return nil
}

func (r *runState) addResult(out ToolOutput) error {
	st := r.lastStep()
	switch {
	case r.status != StatusRunning:
		return fmt.Errorf("result in a %s run", r.status)
	case st == nil || st.n != out.Step || !st.hasCall(out.CallID):
		return fmt.Errorf("result for call %s, not a call of the current step", out.CallID)
	case st.resolved(out.CallID):
		return fmt.Errorf("second result for call %s", out.CallID)
	}
	content, err := decodeParts(out.Content)
	if err != nil {
		return err
	}
	st.results[out.CallID] = sdk.ToolResult{CallID: out.CallID, Name: out.Name, Content: content, IsError: out.IsError}
	return nil
}

func (st *stepState) hasCall(id string) bool {
	return slices.ContainsFunc(st.calls, func(c sdk.ToolCall) bool { return c.ID == id })
}

func (st *stepState) intended(id string) bool { _, ok := st.intents[id]; return ok }
func (st *stepState) resolved(id string) bool { _, ok := st.results[id]; return ok }

// unresolved lists, in call order, the intended calls without a result and
// the calls never intended (nor answered, as unknown tools are).
func (st *stepState) unresolved() (inFlight, unsent []sdk.ToolCall) {
	for _, c := range st.calls {
		switch {
		case st.resolved(c.ID):
		case st.intended(c.ID):
			inFlight = append(inFlight, c)
		default:
			unsent = append(unsent, c)
		}
	}
	return inFlight, unsent
}

// conversation is the whole session as the model sees it: each run's
// prompt, its model steps, and after each step one tool message with a
// result for every call in call order. A call that never got a result (its
// run ended first) is answered with an error saying so, so the history
// stays well formed for every provider.
func (s *sessionState) conversation() []sdk.Message {
	var msgs []sdk.Message
	for _, r := range s.runs {
		msgs = append(msgs, sdk.Message{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: r.start.Prompt}}})
		for _, st := range r.steps {
			msgs = append(msgs, st.message)
			if len(st.calls) == 0 {
				continue
			}
			tm := sdk.Message{Role: sdk.RoleTool}
			for _, c := range st.calls {
				res, ok := st.results[c.ID]
				if !ok {
					res = r.missingResult(st, c)
				}
				tm.Parts = append(tm.Parts, res)
			}
			msgs = append(msgs, tm)
		}
	}
	return msgs
}

// missingResult stands in for a call of an ended run that has no result.
func (r *runState) missingResult(st *stepState, c sdk.ToolCall) sdk.ToolResult {
	why := "the run ended before it was sent"
	if r.end != nil {
		why = fmt.Sprintf("the run ended (%s) before it was sent", r.end.Reason)
	}
	text := "This call was not run: " + why + "."
	if st.intended(c.ID) {
		text = "The outcome of this call is unknown: the run was interrupted after the call was sent, and it was not sent again."
	}
	return sdk.ToolResult{CallID: c.ID, Name: c.Name, IsError: true, Content: []sdk.Part{sdk.Text{Text: text}}}
}

// usedCallIDs are the call ids of every step of r, to keep new ones unique.
func (r *runState) usedCallIDs() map[string]bool {
	used := map[string]bool{}
	for _, st := range r.steps {
		for _, c := range st.calls {
			used[c.ID] = true
		}
	}
	return used
}
