package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// SessionInfo is the projection of one session: its run index and usage
// facts, derived from its WAL. It is rebuilt from the WAL whenever the WAL
// can be read; the WAL wins over any stored snapshot.
type SessionInfo struct {
	ID        string    `json:"id"`
	Key       Key       `json:"key"`
	CreatedAt time.Time `json:"created_at"`
	// Lineage and AppliedSeq are the watermark: the WAL incarnation and the
	// last record this projection includes.
	Lineage    string      `json:"lineage"`
	AppliedSeq uint64      `json:"applied_seq"`
	Runs       []RunInfo   `json:"runs"`
	Usage      []UsageFact `json:"usage,omitempty"`
	// HeldElsewhere: another process holds the WAL, so this is its last
	// stored snapshot (Stale when its watermark is behind the WAL's).
	HeldElsewhere bool   `json:"held_elsewhere,omitempty"`
	Stale         bool   `json:"stale,omitempty"`
	Error         string `json:"error,omitempty"` // the session could not be read
}

// RunInfo is one entry of the run index.
type RunInfo struct {
	RunID          string      `json:"run_id"`
	IdempotencyKey string      `json:"idempotency_key"`
	Chain          string      `json:"chain"`
	ToolBlocks     []string    `json:"tool_blocks,omitempty"`
	MaxTurns       int         `json:"max_turns"`
	Status         Status      `json:"status"`
	Reason         EndReason   `json:"reason,omitempty"`
	PauseReason    PauseReason `json:"pause_reason,omitempty"`
	Steps          int         `json:"steps"`
	StartSeq       uint64      `json:"start_seq"`
	EndSeq         uint64      `json:"end_seq,omitempty"`
	StartedAt      time.Time   `json:"started_at"`
	EndedAt        *time.Time  `json:"ended_at,omitempty"`
	// IndeterminateToolCalls repeats RunFinished's list: calls whose effect
	// is unknown and that were never sent again.
	IndeterminateToolCalls []string `json:"indeterminate_tool_calls,omitempty"`
	// Error is RunFinished's: why a run ended interrupted by a failed log,
	// failed, refused or over budget.
	Error            *ErrorInfo `json:"error,omitempty"`
	Tokens           int64      `json:"tokens"`                      // reported tokens, all steps
	TokensUnreported bool       `json:"tokens_unreported,omitempty"` // a step reported none
	CostUSD          *float64   `json:"cost_usd,omitempty"`          // absent when a step was unpriced
}

// UsageFact is the usage of one model step, as the provider reported it:
// immutable, derived from its ModelStepFinished record. A count the
// provider did not report is absent, never zero; the cost is absent when
// the provider's price (frozen at admission) does not cover a count.
type UsageFact struct {
	RunID            string    `json:"run_id"`
	Seq              uint64    `json:"seq"`
	Step             int       `json:"step"`
	At               time.Time `json:"at"`
	Chain            string    `json:"chain"`
	Provider         string    `json:"provider"`
	Model            string    `json:"model,omitempty"`
	InputTokens      *int64    `json:"input_tokens,omitempty"`
	OutputTokens     *int64    `json:"output_tokens,omitempty"`
	CacheReadTokens  *int64    `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens *int64    `json:"cache_write_tokens,omitempty"`
	CostUSD          *float64  `json:"cost_usd,omitempty"`
}

// project derives the projection from a session's state.
func project(id string, md meta, lineage string, s *sessionState) *SessionInfo {
	info := &SessionInfo{ID: id, Key: md.Key, CreatedAt: md.CreatedAt, Lineage: lineage, AppliedSeq: s.last, Runs: []RunInfo{}}
	for _, r := range s.runs {
		ri := RunInfo{
			RunID: r.id, IdempotencyKey: r.start.IdempotencyKey, Chain: r.start.Chain, ToolBlocks: r.start.ToolBlocks,
			MaxTurns: r.start.MaxTurns, Status: r.status, Steps: len(r.steps), StartSeq: r.startSeq, EndSeq: r.endSeq,
			StartedAt: r.startedAt, Tokens: r.spent.tokens, TokensUnreported: r.spent.unreported,
		}
		if !r.spent.costUnknown && len(r.steps) > 0 {
			c := r.spent.costUSD
			ri.CostUSD = &c
		}
		if r.end != nil {
			ri.Reason, ri.IndeterminateToolCalls, ri.Error = r.end.Reason, r.end.IndeterminateToolCalls, r.end.Error
			at := r.endedAt
			ri.EndedAt = &at
		}
		if r.pause != nil {
			ri.PauseReason = r.pause.Reason
		}
		info.Runs = append(info.Runs, ri)
		info.Usage = append(info.Usage, r.usage...)
	}
	return info
}

// LastRun is the session's newest run, nil before the first.
func (s *SessionInfo) LastRun() *RunInfo {
	if len(s.Runs) == 0 {
		return nil
	}
	return &s.Runs[len(s.Runs)-1]
}

// summary is s without its usage facts, for listings.
func (s *SessionInfo) summary() SessionInfo {
	c := *s
	c.Usage = nil
	return c
}

// writeSnapshot stores info next to the WAL. It is not synced: a lost or
// stale snapshot is rebuilt from the WAL, and is only read when the WAL is
// held by another process.
func writeSnapshot(dir string, info *SessionInfo) error {
	b, err := json.Marshal(info)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, projectionFile), b, false)
}

func readSnapshot(dir string) (*SessionInfo, error) {
	b, err := os.ReadFile(filepath.Join(dir, projectionFile))
	if err != nil {
		return nil, err
	}
	var info SessionInfo
	if err := json.Unmarshal(b, &info); err != nil {
		return nil, fmt.Errorf("session: %s: %w", filepath.Join(dir, projectionFile), err)
	}
	return &info, nil
}

// projections holds every known session's projection, for listings.
type projections struct {
	mu       sync.Mutex
	sessions map[string]*SessionInfo
}

func (p *projections) put(info *SessionInfo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sessions == nil {
		p.sessions = map[string]*SessionInfo{}
	}
	p.sessions[info.ID] = info
}

func (p *projections) get(id string) (*SessionInfo, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	info, ok := p.sessions[id]
	return info, ok
}

// list returns the sessions, most recently active first.
func (p *projections) list() []*SessionInfo {
	p.mu.Lock()
	out := make([]*SessionInfo, 0, len(p.sessions))
	for _, s := range p.sessions {
		out = append(out, s)
	}
	p.mu.Unlock()
	sortSessions(out)
	return out
}

// sortSessions orders sessions most recently active first.
func sortSessions(out []*SessionInfo) {
	sort.Slice(out, func(i, j int) bool {
		ti, tj := lastActive(out[i]), lastActive(out[j])
		if !ti.Equal(tj) {
			return ti.After(tj)
		}
		return out[i].ID < out[j].ID
	})
}

func lastActive(s *SessionInfo) time.Time {
	t := s.CreatedAt
	if r := s.LastRun(); r != nil {
		t = r.StartedAt
		if r.EndedAt != nil {
			t = *r.EndedAt
		}
	}
	return t
}
