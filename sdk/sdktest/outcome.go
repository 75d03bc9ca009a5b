package sdktest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// Recorder is an sdk.Sink that keeps every event it is sent.
type Recorder struct {
	mu     sync.Mutex
	events []sdk.Event
}

var _ sdk.Sink = (*Recorder)(nil)

// Send records ev.
func (r *Recorder) Send(_ context.Context, ev sdk.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
	return nil
}

// Events returns the events sent so far.
func (r *Recorder) Events() []sdk.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sdk.Event(nil), r.events...)
}

// outcome is the canonical, reviewable form of one Generate call: the
// events sent, then the error if the call failed. Usage keeps an absent
// count (omitted) apart from a reported zero.
type outcome struct {
	Events []outcomeEvent `json:"events,omitempty"`
	Error  *outcomeError  `json:"error,omitempty"`
}

type outcomeEvent struct {
	Type      sdk.EventType    `json:"type"`
	Model     string           `json:"model,omitempty"`
	Text      string           `json:"text,omitempty"`
	Signature string           `json:"signature,omitempty"`
	Redacted  string           `json:"redacted,omitempty"`
	Index     *int             `json:"index,omitempty"` // tool calls only
	ToolCall  *outcomeToolCall `json:"tool_call,omitempty"`
	Usage     *outcomeUsage    `json:"usage,omitempty"`
	Finish    sdk.FinishReason `json:"finish,omitempty"`
	Skipped   int              `json:"skipped,omitempty"` // events the plugin passed over
}

type outcomeToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type outcomeUsage struct {
	Input      *int64 `json:"input,omitempty"`
	Output     *int64 `json:"output,omitempty"`
	CacheRead  *int64 `json:"cache_read,omitempty"`
	CacheWrite *int64 `json:"cache_write,omitempty"`
}

type outcomeError struct {
	Class      sdk.Class `json:"class"`
	Status     int       `json:"status,omitempty"`
	RetryAfter string    `json:"retry_after,omitempty"`
	Message    string    `json:"message"`
}

// RenderOutcome renders the result of one Generate call (the events it
// sent and the error it returned) as stable, indented JSON for a golden
// file: each event's set fields, then the error's class, status, retry
// hint and message. The test fails if err carries no class: every failure
// a provider returns must be an *sdk.Error.
func RenderOutcome(t testing.TB, events []sdk.Event, err error) []byte {
	t.Helper()
	var o outcome
	for _, ev := range events {
		g := outcomeEvent{Type: ev.Type, Model: ev.Model, Text: ev.Text, Signature: ev.Signature, Redacted: ev.Redacted, Finish: ev.Finish, Skipped: ev.Skipped}
		if ev.ToolCall != nil {
			idx := ev.Index
			g.Index = &idx
			g.ToolCall = &outcomeToolCall{ID: ev.ToolCall.ID, Name: ev.ToolCall.Name, Input: ev.ToolCall.Input}
		}
		if u := ev.Usage; u != nil {
			g.Usage = &outcomeUsage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheWriteTokens}
		}
		o.Events = append(o.Events, g)
	}
	if err != nil {
		var e *sdk.Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v (%T) carries no class", err, err)
		}
		o.Error = &outcomeError{Class: e.Class, Status: e.Status, Message: e.Message}
		if e.RetryAfter > 0 {
			o.Error.RetryAfter = e.RetryAfter.String()
		}
	}
	out, merr := json.MarshalIndent(o, "", "  ")
	if merr != nil {
		t.Fatal(merr)
	}
	return append(out, '\n')
}
