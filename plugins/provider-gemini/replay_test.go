package main

import (
	"bufio"
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

// Recorded response bodies: the shared set, recorded from the real API by
// other projects, and this plugin's own set for cases the shared one lacks.
const (
	sharedFixtures = "../testdata/wire/gemini" // a copy of ../shared/fixtures/wire; see plugins/testdata/README.md
	localFixtures  = "testdata/wire"
)

// nativeFixture says whether a shared fixture belongs to the native API:
// the gemini folder also holds the OpenAI-compatible endpoint's replies,
// which the openai plugin replays.
func nativeFixture(name string) bool {
	for _, p := range []string{"generate-content-", "stream-generate-content-", "error-"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// fixture is one recorded response: a body and its .meta.json sidecar.
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

func loadFixtures(t *testing.T, dir string, keep func(string) bool) []fixture {
	t.Helper()
	metas, err := filepath.Glob(filepath.Join(dir, "*.meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []fixture
	for _, mp := range metas {
		name := strings.TrimSuffix(filepath.Base(mp), ".meta.json")
		if !keep(name) {
			continue
		}
		var meta fixtureMeta
		raw, err := os.ReadFile(mp)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &meta); err != nil {
			t.Fatalf("%s: %v", mp, err)
		}
		bodies, _ := filepath.Glob(filepath.Join(dir, name+".*"))
		var body string
		for _, b := range bodies {
			if base := filepath.Base(b); base != name+".meta.json" && base != name+".request.json" {
				body = b
			}
		}
		if body == "" {
			t.Fatalf("%s: no body file", mp)
		}
		data, err := os.ReadFile(body)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fixture{name: name, body: data, status: meta.Status, contentType: meta.ContentType, headers: meta.Headers})
	}
	return out
}

// allFixtures returns the shared native fixtures and the local ones. The
// shared set lives beside the repository (../shared); without it only the
// local set runs.
func allFixtures(t *testing.T) []fixture {
	t.Helper()
	var all []fixture
	if _, err := os.Stat(sharedFixtures); err == nil {
		shared := loadFixtures(t, sharedFixtures, nativeFixture)
		if len(shared) == 0 {
			t.Fatalf("%s holds no native fixtures", sharedFixtures)
		}
		all = shared
	} else {
		t.Logf("shared fixtures not found at %s: replaying the local set only", sharedFixtures)
	}
	all = append(all, loadFixtures(t, localFixtures, func(string) bool { return true })...)
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

func (f fixture) isSSE() bool { return strings.HasPrefix(f.contentType, "text/event-stream") }

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

const (
	testModel  = "gemini-2.5-flash"
	testConfig = `{"base_url":"https://gemini.test","model":"` + testModel + `"}`
)

// configured returns a plugin configured against egress.
func configured(t *testing.T, egress sdk.Egress, values string) *gemini {
	t.Helper()
	g := &gemini{now: func() time.Time { return fixedNow }}
	if err := g.Configure(context.Background(), sdk.Config{Values: json.RawMessage(values), Egress: egress}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return g
}

// replayTurn is the turn Generate builds for replayRequest, for tests that
// drive the decoders directly.
func replayTurn(t *testing.T, out sdk.Sink) *turn {
	t.Helper()
	wr, err := buildRequest(replayRequest(), config{BaseURL: defaultBaseURL, Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	body, err := marshal(wr)
	if err != nil {
		t.Fatal(err)
	}
	return newTurn(out, testModel, callIDSeed(body))
}

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

// TestReplaySplitReads decodes every recorded 200 body one byte per read,
// and event streams again with CRLF and with LF line ends: the outcome must
// not change.
func TestReplaySplitReads(t *testing.T) {
	t.Parallel()
	for _, f := range allFixtures(t) {
		if f.status != http.StatusOK {
			continue
		}
		lf := bytes.ReplaceAll(f.body, []byte("\r\n"), []byte("\n"))
		variants := map[string][]byte{"one-byte-reads": f.body}
		if f.isSSE() {
			variants["crlf"] = bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n"))
			variants["lf"] = lf
		}
		for variant, body := range variants {
			t.Run(f.name+"/"+variant, func(t *testing.T) {
				t.Parallel()
				var rec recorder
				r := bufio.NewReaderSize(iotest.OneByteReader(bytes.NewReader(body)), readBufferSize)
				var err error
				if f.isSSE() {
					err = decodeStream(context.Background(), r, replayTurn(t, &rec))
				} else {
					err = decodeJSON(context.Background(), r, replayTurn(t, &rec))
				}
				checkStreamShape(t, rec.events, err)
				matchGolden(t, "replay/"+f.name, outcomeOf(t, rec.events, err))
			})
		}
	}
}

// checkStreamShape holds for every Generate, whatever the golden says: a
// success starts with EventStart and ends with exactly one EventFinish;
// the tool call indices of a turn are 0..n-1, each once, with distinct
// ids; a failure sends no EventFinish.
func checkStreamShape(t *testing.T, events []sdk.Event, err error) {
	t.Helper()
	finishes, calls := 0, 0
	indices, ids := map[int]bool{}, map[string]bool{}
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
				t.Errorf("tool call %d: id %q empty or repeated", calls, ev.ToolCall.ID)
			}
			ids[ev.ToolCall.ID] = true
			if !json.Valid(ev.ToolCall.Input) {
				t.Errorf("tool call %d: input %q is not JSON", calls, ev.ToolCall.Input)
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

// checkOutgoing checks what the plugin put on the wire: one POST to the
// streaming endpoint with alt=sse and no credential of its own, neither as
// a header nor as a key query parameter.
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
	wantPath := "/v1beta/models/" + testModel + ":streamGenerateContent"
	if r.Method != http.MethodPost || u.Host != "gemini.test" || u.Path != wantPath {
		t.Errorf("request %s %s, want POST https://gemini.test%s", r.Method, r.URL, wantPath)
	}
	if got := u.Query(); len(got) != 1 || got.Get("alt") != "sse" {
		t.Errorf("query %q, want exactly alt=sse (no key parameter: the host injects the credential)", u.RawQuery)
	}
	for _, h := range []string{"X-Goog-Api-Key", "Authorization"} {
		if v := r.Header.Values(h); len(v) > 0 {
			t.Errorf("the plugin set %s itself; only the host injects credentials", h)
		}
	}
	var body wireRequest
	if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Contents) == 0 {
		t.Errorf("request body %s: want a generateContent request with contents (%v)", r.Body, err)
	}
}
