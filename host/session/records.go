package session

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/axonhq/axon/sdk"
)

// RecordType names a WAL record.
type RecordType string

const (
	RecRunStarted        RecordType = "run_started"
	RecModelStepFinished RecordType = "model_step_finished"
	RecToolDispatch      RecordType = "tool_dispatch_intent"
	RecToolResult        RecordType = "tool_result"
	RecRunFinished       RecordType = "run_finished"
	RecRunPaused         RecordType = "run_paused"
	RecRunResumed        RecordType = "run_resumed"
)

// recordVersion is the schema version every record is written with.
const recordVersion = 1

// Record is one WAL entry, stored as one JSON object. Exactly the payload
// its Type names is set.
type Record struct {
	Type  RecordType `json:"type"`
	V     int        `json:"v"`
	RunID string     `json:"run_id"`
	At    time.Time  `json:"at"`

	RunStarted *RunStarted `json:"run_started,omitempty"`
	ModelStep  *ModelStep  `json:"model_step,omitempty"`
	Intent     *ToolIntent `json:"intent,omitempty"`
	Result     *ToolOutput `json:"result,omitempty"`
	Finished   *RunEnd     `json:"finished,omitempty"`
	Paused     *RunPause   `json:"paused,omitempty"`
}

// RunStarted freezes everything admission resolved, so that a resumed run
// (on another day, under another config) runs exactly as it was admitted.
type RunStarted struct {
	IdempotencyKey string `json:"idempotency_key"`
	Prompt         string `json:"prompt"`
	System         string `json:"system,omitempty"`
	Chain          string `json:"chain"`
	// ToolBlocks are the tool blocks the caller allowed; Tools is the union
	// of what they served at admission, which is all the model is offered.
	ToolBlocks []string     `json:"tool_blocks,omitempty"`
	Tools      []FrozenTool `json:"tools,omitempty"`
	MaxTurns   int          `json:"max_turns"`
	Budget     Budget       `json:"budget,omitzero"`
	// Models are the chain's hops as the catalog described them at
	// admission, in order: the provider block, its model, its window, its
	// prices (the cost basis of the run's usage facts and budget) and
	// capabilities. A resumed run runs on these alone, or is refused
	// (ModelError) when one is no longer served.
	Models []ModelFacts `json:"models,omitempty"`
	// Prices is the cost basis of a run admitted before the catalog (its
	// RunStarted has no Models), by provider block. It is no longer
	// written.
	Prices map[string]Price `json:"prices,omitempty"`
}

// FrozenTool is one tool a run may call, as its block described it.
type FrozenTool struct {
	Block       string          `json:"block"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	SideEffect  sdk.SideEffect  `json:"side_effect"`
}

// Budget bounds a run's spend. A nil field sets no bound.
type Budget struct {
	Tokens  *int64   `json:"tokens,omitempty"`   // input + output + cache tokens, as reported
	CostUSD *float64 `json:"cost_usd,omitempty"` // at the frozen prices
}

// Price is USD per million tokens; nil is unknown, never zero.
type Price struct {
	InputPerMTok      *float64 `json:"input_per_mtok,omitempty"`
	OutputPerMTok     *float64 `json:"output_per_mtok,omitempty"`
	CacheReadPerMTok  *float64 `json:"cache_read_per_mtok,omitempty"`
	CacheWritePerMTok *float64 `json:"cache_write_per_mtok,omitempty"`
}

// ModelStep is one model call that answered, through the chain.
type ModelStep struct {
	Step     int        `json:"step"` // 1 for the run's first model call
	Message  []partJSON `json:"message"`
	Finish   string     `json:"finish,omitempty"`
	Chain    string     `json:"chain"`
	Provider string     `json:"provider"`
	Model    string     `json:"model,omitempty"`
	Usage    *Usage     `json:"usage,omitempty"` // nil: the provider reported none
	Trail    string     `json:"trail,omitempty"`
}

// Usage is token accounting as the provider reported it: a nil count was
// not reported (absent, never zero).
type Usage struct {
	InputTokens      *int64 `json:"input_tokens,omitempty"`
	OutputTokens     *int64 `json:"output_tokens,omitempty"`
	CacheReadTokens  *int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens *int64 `json:"cache_write_tokens,omitempty"`
}

// ToolIntent announces one dispatch. It is durable before the tool is
// called; all intents of one model step are written in one batch.
type ToolIntent struct {
	Step           int            `json:"step"`
	CallID         string         `json:"call_id"`
	Name           string         `json:"name"`
	Block          string         `json:"block"`
	SideEffect     sdk.SideEffect `json:"side_effect"`
	IdempotencyKey string         `json:"idempotency_key"` // run_id:call_id
}

// ToolOutput is what came of one call: the tool's result, or a failure
// the model is told about.
type ToolOutput struct {
	Step    int        `json:"step"`
	CallID  string     `json:"call_id"`
	Name    string     `json:"name"`
	Block   string     `json:"block,omitempty"` // empty when no allowed tool has the name
	Content []partJSON `json:"content"`
	IsError bool       `json:"is_error,omitempty"`
	// Error is an infrastructure failure of the call (the plugin died, the
	// call timed out); the model sees it as an error result.
	Error string `json:"error,omitempty"`
	// OutcomeUnknown: the call may or may not have taken effect (it timed
	// out or its plugin died mid-call). It is never re-sent.
	OutcomeUnknown bool  `json:"outcome_unknown,omitempty"`
	DurationMS     int64 `json:"duration_ms"`
}

// EndReason says why a run finished.
type EndReason string

const (
	EndCompleted   EndReason = "completed"   // the model answered without tool calls
	EndMaxTurns    EndReason = "max_turns"   // max_turns model steps were taken
	EndBudget      EndReason = "budget"      // the token or cost budget was spent
	EndCancelled   EndReason = "cancelled"   // the caller cancelled it
	EndInterrupted EndReason = "interrupted" // the host stopped (SIGTERM) or crashed mid-call
	EndRefused     EndReason = "refused"     // the chain refused (content_filter)
	EndFailed      EndReason = "failed"      // the run cannot go on (its chain is gone)
)

// RunEnd closes a run for good.
type RunEnd struct {
	Reason EndReason `json:"reason"`
	// IndeterminateToolCalls were dispatched (their intent is durable) but
	// have no result: their effect is unknown and they are never re-sent.
	IndeterminateToolCalls []string `json:"indeterminate_tool_calls,omitempty"`
	// NotDispatched are tool calls of the last model step that were never
	// sent (the run stopped first).
	NotDispatched []string   `json:"not_dispatched,omitempty"`
	Error         *ErrorInfo `json:"error,omitempty"`
}

// PauseReason says why a run paused.
type PauseReason string

const (
	// PauseModelUnavailable: no provider of the chain answered the model step.
	PauseModelUnavailable PauseReason = "model_unavailable"
	// PauseModelUnservable: a model the run was admitted with is no longer
	// served (ModelError): a resume is refused until it is again.
	PauseModelUnservable PauseReason = "model_unservable"
)

// RunPause stops a run in a resumable state: every tool call has a result
// and the next step is a model call. POST …/resume continues it.
type RunPause struct {
	Reason       PauseReason `json:"reason"`
	Error        *ErrorInfo  `json:"error,omitempty"`
	RetryAfterMS int64       `json:"retry_after_ms,omitempty"`
}

// ErrorInfo is a failure as safe to show: class, code, short message and
// the chain's decision trail. It never holds a credential.
type ErrorInfo struct {
	Class   string `json:"class,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
	Trail   string `json:"trail,omitempty"`
}

// encodeRecord marshals r with the current version.
func encodeRecord(r Record) ([]byte, error) {
	r.V = recordVersion
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("session: encode %s record: %w", r.Type, err)
	}
	return b, nil
}

// DecodeRecord reads one WAL payload and checks that it carries the payload
// its type names.
func DecodeRecord(b []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("session: decode record: %w", err)
	}
	if r.V != recordVersion {
		return r, fmt.Errorf("session: record version %d, want %d", r.V, recordVersion)
	}
	if r.RunID == "" {
		return r, fmt.Errorf("session: %s record without run_id", r.Type)
	}
	var ok bool
	switch r.Type {
	case RecRunStarted:
		ok = r.RunStarted != nil
	case RecModelStepFinished:
		ok = r.ModelStep != nil
	case RecToolDispatch:
		ok = r.Intent != nil
	case RecToolResult:
		ok = r.Result != nil
	case RecRunFinished:
		ok = r.Finished != nil
	case RecRunPaused:
		ok = r.Paused != nil
	case RecRunResumed:
		ok = true
	default:
		return r, fmt.Errorf("session: unknown record type %q", r.Type)
	}
	if !ok {
		return r, fmt.Errorf("session: %s record without its payload", r.Type)
	}
	return r, nil
}

// usageOf converts the chain's usage, keeping absent counts absent.
func usageOf(u *sdk.Usage) *Usage {
	if u == nil || (u.InputTokens == nil && u.OutputTokens == nil && u.CacheReadTokens == nil && u.CacheWriteTokens == nil) {
		return nil
	}
	return &Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens}
}

// total is the sum of the reported counts.
func (u *Usage) total() int64 {
	var n int64
	for _, p := range []*int64{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens} {
		if p != nil {
			n += *p
		}
	}
	return n
}
