package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// Recorded response bodies: the shared set, recorded from the real API by
// other projects, and this plugin's own set for cases the shared one lacks.
const (
	sharedFixtures = "../testdata/wire/gemini" // the recorded provider responses; see plugins/testdata/README.md
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

// allFixtures returns the shared native fixtures and the local ones,
// sorted by name.
func allFixtures(t *testing.T) []sdktest.Fixture {
	t.Helper()
	return sdktest.LoadFixtures(t, func(dir, name string) bool { return dir == localFixtures || nativeFixture(name) }, sharedFixtures, localFixtures)
}

func isSSE(f sdktest.Fixture) bool { return strings.HasPrefix(f.ContentType, "text/event-stream") }

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
	body, err := sdk.EncodeJSON(wr)
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
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			egress := sdktest.NewFakeEgress(t, f)
			sdktest.ReplayGolden(t, golden("replay/"+f.Name), *update, func(out sdk.Sink) error {
				return configured(t, egress, testConfig).Generate(context.Background(), replayRequest(), out)
			})
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
		if f.Status != http.StatusOK {
			continue
		}
		for variant, body := range sdktest.SplitReads(f.Body, isSSE(f)) {
			t.Run(f.Name+"/"+variant, func(t *testing.T) {
				t.Parallel()
				sdktest.ReplayGolden(t, golden("replay/"+f.Name), false, func(out sdk.Sink) error {
					r := bufio.NewReader(body)
					if isSSE(f) {
						return decodeStream(context.Background(), r, replayTurn(t, out))
					}
					return decodeJSON(context.Background(), r, replayTurn(t, out))
				})
			})
		}
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
