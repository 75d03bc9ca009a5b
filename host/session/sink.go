package session

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/axonhq/axon/sdk"
)

// stepSink receives the answering hop's stream of one model step: it
// assembles the assistant message and puts every text and reasoning delta
// on the display lane as it arrives.
type stepSink struct {
	display func(Delta)
	runID   string
	step    int

	text      strings.Builder
	reasoning []sdk.Reasoning
	thinking  *sdk.Reasoning // the reasoning block being streamed
	calls     []indexedCall
}

type indexedCall struct {
	index int
	call  sdk.ToolCall
}

var _ sdk.Sink = (*stepSink)(nil)

func (s *stepSink) Send(_ context.Context, ev sdk.Event) error {
	switch ev.Type {
	case sdk.EventTextDelta:
		s.text.WriteString(ev.Text)
		s.show("text", ev.Text)
	case sdk.EventReasoningDelta:
		if ev.Redacted != "" {
			s.endThinking()
			s.reasoning = append(s.reasoning, sdk.Reasoning{Redacted: ev.Redacted})
			break
		}
		if s.thinking == nil {
			s.thinking = &sdk.Reasoning{}
		}
		s.thinking.Text += ev.Text
		s.show("reasoning", ev.Text)
		if ev.Signature != "" {
			s.thinking.Signature = ev.Signature
			s.endThinking()
		}
	case sdk.EventToolCall:
		if ev.ToolCall != nil {
			s.calls = append(s.calls, indexedCall{index: ev.Index, call: *ev.ToolCall})
		}
	}
	return nil
}

func (s *stepSink) show(kind, text string) {
	if text != "" && s.display != nil {
		s.display(Delta{Type: DeltaText, RunID: s.runID, Step: s.step, Kind: kind, Text: text})
	}
}

func (s *stepSink) endThinking() {
	if s.thinking != nil {
		s.reasoning = append(s.reasoning, *s.thinking)
		s.thinking = nil
	}
}

// parts is the assistant message: reasoning, text, then the tool calls in
// index order, with call ids made unique within the run (used holds the
// run's earlier ids) so that run_id:call_id is a key no other call shares.
//
// Reasoning is stamped with the provider that produced it (origin): the
// chain passes it back to that provider only.
func (s *stepSink) parts(used map[string]bool, origin string) []sdk.Part {
	s.endThinking()
	var parts []sdk.Part
	for _, r := range s.reasoning {
		r.Origin = origin
		parts = append(parts, r)
	}
	if s.text.Len() > 0 {
		parts = append(parts, sdk.Text{Text: s.text.String()})
	}
	calls := slices.Clone(s.calls)
	slices.SortStableFunc(calls, func(a, b indexedCall) int { return a.index - b.index })
	for i, c := range calls {
		call := c.call
		call.ID = uniqueCallID(call.ID, s.step, i, used)
		parts = append(parts, call)
	}
	return parts
}

// uniqueCallID keeps id unless it is empty or already used in the run (a
// model that numbers its calls call_0, call_1 in every turn), and marks the
// result used.
func uniqueCallID(id string, step, i int, used map[string]bool) string {
	if id == "" || used[id] {
		base := id
		if base == "" {
			base = "call"
		}
		id = fmt.Sprintf("%s_s%d_%d", base, step, i)
		for n := 2; used[id]; n++ {
			id = fmt.Sprintf("%s_s%d_%d_%d", base, step, i, n)
		}
	}
	used[id] = true
	return id
}
