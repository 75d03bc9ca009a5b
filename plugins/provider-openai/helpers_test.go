package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// fixedNow is the test clock: reset times in replayed headers are measured
// against it when a response carries no Date.
var fixedNow = time.Date(2025, 8, 8, 15, 40, 34, 0, time.UTC)

// configure returns a plugin configured with values and a fake egress that
// routes every request to h.
func configure(t *testing.T, h http.Handler, values string) (*openai, *sdktest.FakeEgress) {
	t.Helper()
	fe := sdktest.NewFakeEgress(t, h)
	p := &openai{now: func() time.Time { return fixedNow }}
	if err := p.Configure(context.Background(), sdk.Config{Values: json.RawMessage(values), Egress: fe}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return p, fe
}

// generate runs one Generate and collects what it sent.
func generate(t *testing.T, p *openai, req *sdk.Request) ([]sdk.Event, error) {
	t.Helper()
	var events []sdk.Event
	err := p.Generate(context.Background(), req, sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error {
		events = append(events, ev)
		return nil
	}))
	return events, err
}

func userRequest(text string) *sdk.Request {
	return &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: text}}}}}
}

// render is the canonical, reviewable form of a Generate result: one JSON
// line per event, then the error if there was one.
func render(t *testing.T, events []sdk.Event, err error) string {
	t.Helper()
	var b strings.Builder
	for _, ev := range events {
		line := map[string]any{"type": ev.Type}
		switch ev.Type {
		case sdk.EventStart:
			line["model"] = ev.Model
		case sdk.EventTextDelta, sdk.EventReasoningDelta:
			line["text"] = ev.Text
			if ev.Signature != "" {
				line["signature"] = ev.Signature
			}
			if ev.Redacted != "" {
				line["redacted"] = ev.Redacted
			}
		case sdk.EventToolCall:
			line["index"] = ev.Index
			line["id"] = ev.ToolCall.ID
			line["name"] = ev.ToolCall.Name
			line["input"] = ev.ToolCall.Input
		case sdk.EventUsage:
			u := map[string]int64{}
			for name, v := range map[string]*int64{
				"input": ev.Usage.InputTokens, "output": ev.Usage.OutputTokens,
				"cache_read": ev.Usage.CacheReadTokens, "cache_write": ev.Usage.CacheWriteTokens,
			} {
				if v != nil {
					u[name] = *v
				}
			}
			line["usage"] = u
		case sdk.EventFinish:
			line["finish"] = ev.Finish
			if ev.Skipped > 0 {
				line["skipped"] = ev.Skipped
			}
		}
		writeJSONLine(t, &b, line)
	}
	if err != nil {
		var se *sdk.Error
		if !errors.As(err, &se) {
			writeJSONLine(t, &b, map[string]any{"error": map[string]any{"unclassified": err.Error()}})
			return b.String()
		}
		e := map[string]any{"class": se.Class, "message": se.Message}
		if se.Code != "" {
			e["code"] = se.Code
		}
		if se.Status != 0 {
			e["status"] = se.Status
		}
		if se.RetryAfter != 0 {
			e["retry_after"] = se.RetryAfter.String()
		}
		writeJSONLine(t, &b, map[string]any{"error": e})
	}
	return b.String()
}

func writeJSONLine(t *testing.T, b *strings.Builder, v any) {
	t.Helper()
	line, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	b.Write(line)
	b.WriteByte('\n')
}

// checkGolden compares got with the golden file at path (under
// testdata/golden), or rewrites it with -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	sdktest.Golden(t, filepath.Join("testdata", "golden", path), []byte(got), *update)
}

// errorSummary is the part of an *sdk.Error tests compare.
type errorSummary struct {
	Class      sdk.Class
	Code       string
	Status     int
	RetryAfter time.Duration
}

func summarize(err error) errorSummary {
	if err == nil {
		return errorSummary{}
	}
	var se *sdk.Error
	if !errors.As(err, &se) {
		return errorSummary{Code: fmt.Sprintf("unclassified: %v", err)}
	}
	return errorSummary{Class: se.Class, Code: se.Code, Status: se.Status, RetryAfter: se.RetryAfter}
}

func readFixture(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedFixtures, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
