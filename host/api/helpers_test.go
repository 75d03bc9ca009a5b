package api

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// testTime is the clock of every test server: responses carry created = 1767225600.
var testTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// testModels are the names the fake backend serves.
var testModels = []ModelInfo{
	{ID: "default", Chain: "default"},
	{ID: "default/glm", Chain: "default", Provider: "glm", Model: "glm-4.6"},
	{ID: "default/ollama", Chain: "default", Provider: "ollama", Model: "qwen2.5:3b"},
}

// fakeBackend resolves the names of models (testModels when nil) and
// answers every request by running gen, or, when gen is nil, by committing
// to commit (if set), sending events and returning answer and err. It
// records what it was asked.
type fakeBackend struct {
	models []ModelInfo
	events []sdk.Event
	commit *Answer
	answer *Answer
	err    error
	gen    func(ctx context.Context, model string, req *sdk.Request, out sdk.Sink, commit func(Answer)) (*Answer, error)

	mu       sync.Mutex
	model    string
	req      *sdk.Request
	delivery Delivery
}

var (
	_ Backend = (*fakeBackend)(nil)
	_ Target  = fakeTarget{}
)

func (f *fakeBackend) Resolve(model string) (Target, bool) {
	for _, m := range f.Models(context.Background()) {
		if m.ID == model {
			return fakeTarget{f: f, m: m}, true
		}
	}
	return nil, false
}

func (f *fakeBackend) Models(context.Context) []ModelInfo {
	if f.models == nil {
		return testModels
	}
	return f.models
}

// fakeTarget is one model of a fakeBackend.
type fakeTarget struct {
	f *fakeBackend
	m ModelInfo
}

func (t fakeTarget) Chain() string { return t.m.Chain }

func (t fakeTarget) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink, commit func(Answer), d Delivery) (*Answer, error) {
	f := t.f
	f.mu.Lock()
	f.model, f.req, f.delivery = t.m.ID, req, d
	f.mu.Unlock()
	if f.gen != nil {
		return f.gen(ctx, t.m.ID, req, out, commit)
	}
	if f.commit != nil {
		commit(*f.commit)
	}
	for _, ev := range f.events {
		if err := out.Send(ctx, ev); err != nil {
			return f.answer, err
		}
	}
	return f.answer, f.err
}

func (f *fakeBackend) askedDelivery() Delivery {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.delivery
}

func (f *fakeBackend) asked() (string, *sdk.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.model, f.req
}

// fixedIDs makes response and tool call ids predictable: id1, id2, ...
func fixedIDs() Option {
	return func(c *config) {
		var mu sync.Mutex
		n := 0
		c.newID = func() string {
			mu.Lock()
			defer mu.Unlock()
			n++
			return "id" + strconv.Itoa(n)
		}
	}
}

// The limits and the clock have no exported Option (axon runs with the
// Default* limits); the tests lower them with these.

func withClock(now func() time.Time) Option         { return func(c *config) { c.now = now } }
func withMaxBodyBytes(n int64) Option               { return func(c *config) { c.maxBody = n } }
func withBodyTimeout(d time.Duration) Option        { return func(c *config) { c.bodyTimeout = d } }
func withWriteStall(d time.Duration) Option         { return func(c *config) { c.writeStall = d } }
func withMaxAnswerBytes(n int64) Option             { return func(c *config) { c.maxAnswer = n } }
func withOverloadRetryAfter(d time.Duration) Option { return func(c *config) { c.retryAfter = d } }
func withMaxInFlight(total, perChain int) Option {
	return func(c *config) { c.maxInFlight, c.maxPerChain = total, perChain }
}

// newServer serves New(b, opts...) with a fixed clock and ids.
func newServer(t testing.TB, b Backend, opts ...Option) *httptest.Server {
	t.Helper()
	opts = append([]Option{fixedIDs(), withClock(func() time.Time { return testTime })}, opts...)
	srv := httptest.NewServer(New(b, opts...))
	t.Cleanup(srv.Close)
	return srv
}

// post sends body to path with the given header pairs.
func post(t testing.TB, srv *httptest.Server, path, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readAll(t testing.TB, r io.Reader) string {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsonValue parses s into generic JSON values for comparison.
func jsonValue(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return v
}

// sameJSON fails unless got and want hold the same JSON value.
func sameJSON(t testing.TB, got, want string) {
	t.Helper()
	if diff := cmp.Diff(jsonValue(t, want), jsonValue(t, got)); diff != "" {
		t.Errorf("JSON mismatch (-want +got):\n%s\ngot: %s", diff, got)
	}
}

// sseEvent is one server-sent event.
type sseEvent struct {
	Event string
	Data  string
}

// parseSSE splits a text/event-stream body into events the way the
// official clients do: fields up to a blank line, comments skipped, data
// lines joined with "\n".
func parseSSE(t testing.TB, body string) []sseEvent {
	t.Helper()
	var (
		out  []sseEvent
		cur  sseEvent
		data []string
	)
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			if len(data) > 0 || cur.Event != "" {
				cur.Data = strings.Join(data, "\n")
				out = append(out, cur)
			}
			cur, data = sseEvent{}, nil
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "event":
			cur.Event = value
		case "data":
			data = append(data, value)
		}
	}
	if len(data) > 0 || cur.Event != "" {
		t.Errorf("stream ends inside an event (no blank line after %q)", strings.Join(data, "\n"))
	}
	return out
}

// golden compares got with testdata/golden/name, or rewrites the file
// under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// Canonical event shorthands.
func start(model string) sdk.Event { return sdk.Event{Type: sdk.EventStart, Model: model} }
func text(s string) sdk.Event      { return sdk.Event{Type: sdk.EventTextDelta, Text: s} }
func think(s string) sdk.Event     { return sdk.Event{Type: sdk.EventReasoningDelta, Text: s} }
func signed(sig string) sdk.Event  { return sdk.Event{Type: sdk.EventReasoningDelta, Signature: sig} }
func redacted(d string) sdk.Event  { return sdk.Event{Type: sdk.EventReasoningDelta, Redacted: d} }
func finish(r sdk.FinishReason) sdk.Event {
	return sdk.Event{Type: sdk.EventFinish, Finish: r}
}

func toolCall(index int, id, name, input string) sdk.Event {
	return sdk.Event{Type: sdk.EventToolCall, Index: index, ToolCall: &sdk.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}}
}

func usage(in, out int64) sdk.Event {
	return sdk.Event{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(in), OutputTokens: sdk.Tokens(out)}}
}
