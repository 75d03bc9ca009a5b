package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden from the current output")

// recorder is a Sink that keeps every event.
type recorder struct{ events []sdk.Event }

func (r *recorder) Send(_ context.Context, ev sdk.Event) error {
	r.events = append(r.events, ev)
	return nil
}

// outcome is the canonical result of one Generate call, as stored in a
// golden file: the events sent, then the error if the call failed.
type outcome struct {
	Events []goldenEvent `json:"events,omitempty"`
	Error  *goldenError  `json:"error,omitempty"`
}

type goldenEvent struct {
	Type      sdk.EventType    `json:"type"`
	Model     string           `json:"model,omitempty"`
	Text      string           `json:"text,omitempty"`
	Signature string           `json:"signature,omitempty"`
	Redacted  string           `json:"redacted,omitempty"`
	Index     *int             `json:"index,omitempty"` // tool calls only
	ToolCall  *goldenToolCall  `json:"tool_call,omitempty"`
	Usage     *goldenUsage     `json:"usage,omitempty"`
	Finish    sdk.FinishReason `json:"finish,omitempty"`
}

type goldenToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// goldenUsage keeps absent (omitted) apart from a reported zero.
type goldenUsage struct {
	Input      *int64 `json:"input,omitempty"`
	Output     *int64 `json:"output,omitempty"`
	CacheRead  *int64 `json:"cache_read,omitempty"`
	CacheWrite *int64 `json:"cache_write,omitempty"`
}

type goldenError struct {
	Class      sdk.Class `json:"class"`
	Status     int       `json:"status,omitempty"`
	RetryAfter string    `json:"retry_after,omitempty"`
	Message    string    `json:"message"`
}

func outcomeOf(t *testing.T, events []sdk.Event, err error) outcome {
	t.Helper()
	var o outcome
	for _, ev := range events {
		g := goldenEvent{Type: ev.Type, Model: ev.Model, Text: ev.Text, Signature: ev.Signature, Redacted: ev.Redacted, Finish: ev.Finish}
		if ev.ToolCall != nil {
			idx := ev.Index
			g.Index = &idx
			g.ToolCall = &goldenToolCall{ID: ev.ToolCall.ID, Name: ev.ToolCall.Name, Input: ev.ToolCall.Input}
		}
		if u := ev.Usage; u != nil {
			g.Usage = &goldenUsage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheWriteTokens}
		}
		o.Events = append(o.Events, g)
	}
	if err != nil {
		var e *sdk.Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v (%T) carries no class", err, err)
		}
		o.Error = &goldenError{Class: e.Class, Status: e.Status, Message: e.Message}
		if e.RetryAfter > 0 {
			o.Error.RetryAfter = e.RetryAfter.String()
		}
	}
	return o
}

// checkGolden compares v, as indented JSON, with testdata/golden/<name>.json,
// or rewrites that file under -update.
func checkGolden(t *testing.T, name string, v any) {
	t.Helper()
	got := marshalGolden(t, v)
	path := goldenPath(name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	compareGolden(t, path, got)
}

// matchGolden compares v with a golden file written by another test; it
// never rewrites it, so a variant (split reads, CRLF) cannot mask a
// difference under -update.
func matchGolden(t *testing.T, name string, v any) {
	t.Helper()
	compareGolden(t, goldenPath(name), marshalGolden(t, v))
}

func goldenPath(name string) string { return filepath.Join("testdata", "golden", name+".json") }

func marshalGolden(t *testing.T, v any) []byte {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(got, '\n')
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (-want +got):\n%s", path, cmp.Diff(string(want), string(got)))
	}
}
