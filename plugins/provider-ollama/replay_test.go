package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// Recorded response bodies: the shared set, recorded from a real Ollama by
// other projects (only its native api-chat-* files: the v1-* ones are the
// OpenAI-compatible endpoint, replayed by provider-openai), and this
// plugin's own hand-written set for cases nobody recorded.
const (
	sharedFixtures = "../testdata/wire/ollama" // a copy of ../shared/fixtures/wire; see plugins/testdata/README.md
	sharedPrefix   = "api-chat-"
	localFixtures  = "testdata/wire"
)

// fixture is one response: a body and its .meta.json sidecar.
type fixture struct {
	name        string
	body        []byte
	status      int
	contentType string
	headers     map[string]string
}

type fixtureMeta struct {
	Status      int               `json:"status"`
	ContentType string            `json:"content_type"`
	Headers     map[string]string `json:"recorded_response_headers"`
}

// loadFixtures reads every fixture in dir whose name starts with prefix.
func loadFixtures(t *testing.T, dir, prefix string) []fixture {
	t.Helper()
	metas, err := filepath.Glob(filepath.Join(dir, prefix+"*.meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []fixture
	for _, mp := range metas {
		name := strings.TrimSuffix(filepath.Base(mp), ".meta.json")
		raw, err := os.ReadFile(mp)
		if err != nil {
			t.Fatal(err)
		}
		var meta fixtureMeta
		if err := json.Unmarshal(raw, &meta); err != nil {
			t.Fatalf("%s: %v", mp, err)
		}
		var body []byte
		for _, ext := range []string{".txt", ".json"} {
			if body, err = os.ReadFile(filepath.Join(dir, name+ext)); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("%s: no .txt or .json body", mp)
		}
		out = append(out, fixture{name: name, body: body, status: meta.Status, contentType: meta.ContentType, headers: meta.Headers})
	}
	return out
}

// allFixtures returns the shared and local fixtures. The shared set lives
// beside the repository (../shared); without it only the local set runs.
func allFixtures(t *testing.T) []fixture {
	t.Helper()
	var all []fixture
	if _, err := os.Stat(sharedFixtures); err == nil {
		shared := loadFixtures(t, sharedFixtures, sharedPrefix)
		if len(shared) == 0 {
			t.Fatalf("%s holds no %s* fixtures", sharedFixtures, sharedPrefix)
		}
		all = shared
	} else {
		t.Logf("shared fixtures not found at %s: replaying the local set only", sharedFixtures)
	}
	all = append(all, loadFixtures(t, localFixtures, "")...)
	seen := map[string]bool{}
	for _, f := range all {
		if seen[f.name] {
			t.Fatalf("fixture name %q appears twice: goldens are keyed by name", f.name)
		}
		seen[f.name] = true
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	return all
}

// serve answers every request with the recorded response.
func (f fixture) serve() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range f.headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", f.contentType)
		w.WriteHeader(f.status)
		_, _ = w.Write(f.body)
	})
}

func (f fixture) isNDJSON() bool { return strings.HasPrefix(f.contentType, "application/x-ndjson") }

// replayRequest is the request replayed against every fixture; the
// outcome depends on the recorded response only.
func replayRequest() *sdk.Request {
	return &sdk.Request{
		Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "What's the weather in Florence?"}}}},
		Tools:    []sdk.ToolSpec{{Name: "weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}}}`)}},
	}
}

// fixedNow is the clock of replayed calls, for HTTP-date retry hints.
var fixedNow = time.Date(2026, 4, 5, 14, 28, 55, 0, time.UTC)

// configured returns a plugin configured against egress.
func configured(t *testing.T, egress sdk.Egress, values string) *ollama {
	t.Helper()
	o := &ollama{now: func() time.Time { return fixedNow }}
	if err := o.Configure(context.Background(), sdk.Config{Values: json.RawMessage(values), Egress: egress}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return o
}

const testConfig = `{"base_url":"http://ollama.test:11434","model":"qwen3:4b"}`

// TestReplayFixtures replays every recorded response through Generate, via
// the fake egress, and compares the canonical outcome with its golden file.
func TestReplayFixtures(t *testing.T) {
	t.Parallel()
	for _, f := range allFixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			egress := sdktest.NewFakeEgress(t, f.serve())
			var rec recorder
			err := configured(t, egress, testConfig).Generate(context.Background(), replayRequest(), &rec)
			checkStreamShape(t, rec.events, err)
			checkGolden(t, "replay/"+f.name, outcomeOf(t, rec.events, err))
			checkOutgoing(t, egress.Requests())
		})
	}
}

// TestReplaySplitReads decodes every recorded stream one byte per read,
// and again with CRLF line ends: the outcome must not change.
func TestReplaySplitReads(t *testing.T) {
	t.Parallel()
	for _, f := range allFixtures(t) {
		if !f.isNDJSON() || f.status != http.StatusOK {
			continue
		}
		variants := map[string][]byte{
			"one-byte-reads": f.body,
			"crlf":           bytes.ReplaceAll(bytes.ReplaceAll(f.body, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n")),
		}
		for variant, body := range variants {
			t.Run(f.name+"/"+variant, func(t *testing.T) {
				t.Parallel()
				var rec recorder
				err := decodeStream(context.Background(), iotest.OneByteReader(bytes.NewReader(body)), &turn{out: &rec})
				checkStreamShape(t, rec.events, err)
				matchGolden(t, "replay/"+f.name, outcomeOf(t, rec.events, err))
			})
		}
	}
}

// checkStreamShape holds for every Generate, whatever the golden says: a
// success starts with EventStart and ends with exactly one EventFinish;
// the tool call indices of a turn are 0..n-1, each once, and their ids
// distinct; a failure sends no EventFinish.
func checkStreamShape(t *testing.T, events []sdk.Event, err error) {
	t.Helper()
	finishes, calls := 0, 0
	indices := map[int]bool{}
	ids := map[string]bool{}
	for i, ev := range events {
		switch ev.Type {
		case sdk.EventStart:
			if i != 0 {
				t.Errorf("event %d: start is not first", i)
			}
		case sdk.EventFinish:
			finishes++
			if i != len(events)-1 {
				t.Errorf("event %d: finish is not last", i)
			}
		case sdk.EventToolCall:
			if indices[ev.Index] {
				t.Errorf("tool call index %d sent twice", ev.Index)
			}
			indices[ev.Index] = true
			if ev.ToolCall.ID == "" || ids[ev.ToolCall.ID] {
				t.Errorf("tool call %d: id %q is empty or used twice", calls, ev.ToolCall.ID)
			}
			ids[ev.ToolCall.ID] = true
			if !json.Valid(ev.ToolCall.Input) || !bytes.HasPrefix(ev.ToolCall.Input, []byte("{")) {
				t.Errorf("tool call %d: input %q is not a JSON object", calls, ev.ToolCall.Input)
			}
			calls++
		}
	}
	for i := range calls {
		if !indices[i] {
			t.Errorf("%d tool calls, but none has index %d", calls, i)
		}
	}
	switch {
	case err == nil && (len(events) == 0 || events[0].Type != sdk.EventStart):
		t.Error("success without a start event")
	case err == nil && finishes != 1:
		t.Errorf("success with %d finish events", finishes)
	case err != nil && finishes != 0:
		t.Errorf("failure %v after a finish event", err)
	}
}

// checkOutgoing checks what the plugin put on the wire: one POST to
// /api/chat, streaming, with no credential of its own.
func checkOutgoing(t *testing.T, reqs []sdktest.Recorded) {
	t.Helper()
	if len(reqs) != 1 {
		t.Fatalf("%d upstream requests, want 1 (the plugin must not retry on its own)", len(reqs))
	}
	r := reqs[0]
	u, err := url.Parse(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != http.MethodPost || u.Host != "ollama.test:11434" || u.Path != "/api/chat" {
		t.Errorf("request %s %s, want POST http://ollama.test:11434/api/chat", r.Method, r.URL)
	}
	if got := r.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("content-type %q, want application/json", got)
	}
	for _, h := range []string{"Authorization", "X-Api-Key"} {
		if v := r.Header.Values(h); len(v) > 0 {
			t.Errorf("the plugin set %s itself; only the host injects credentials", h)
		}
	}
	var body struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || !body.Stream || body.Model != "qwen3:4b" {
		t.Errorf("request body %s: want model qwen3:4b and stream true", r.Body)
	}
}
