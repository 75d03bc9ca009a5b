package main

import (
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
	sharedFixtures = "../testdata/wire/anthropic" // the recorded provider responses; see plugins/testdata/README.md
	localFixtures  = "testdata/wire"
)

// allFixtures returns the shared and local fixtures, sorted by name.
func allFixtures(t *testing.T) []sdktest.Fixture {
	t.Helper()
	return sdktest.LoadFixtures(t, nil, sharedFixtures, localFixtures)
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

// configured returns a plugin configured against egress.
func configured(t *testing.T, egress sdk.Egress, values string) *anthropic {
	t.Helper()
	a := &anthropic{now: func() time.Time { return fixedNow }}
	if err := a.Configure(context.Background(), sdk.Config{Values: json.RawMessage(values), Egress: egress}); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return a
}

const testConfig = `{"base_url":"https://api.anthropic.test","model":"claude-sonnet-4-5"}`

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

// TestReplaySplitReads decodes every recorded event stream one byte per
// read, as recorded and with CRLF and LF line ends: the outcome must not
// change.
func TestReplaySplitReads(t *testing.T) {
	t.Parallel()
	for _, f := range allFixtures(t) {
		if !isSSE(f) || f.Status != http.StatusOK {
			continue
		}
		for variant, body := range sdktest.SplitReads(f.Body, true) {
			t.Run(f.Name+"/"+variant, func(t *testing.T) {
				t.Parallel()
				sdktest.ReplayGolden(t, golden("replay/"+f.Name), false, func(out sdk.Sink) error {
					return decodeStream(context.Background(), body, newTurn(out))
				})
			})
		}
	}
}

// checkOutgoing checks what the plugin put on the wire: one POST to
// /v1/messages with the version header and no credential of its own.
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
	if r.Method != http.MethodPost || u.Host != "api.anthropic.test" || u.Path != "/v1/messages" {
		t.Errorf("request %s %s, want POST https://api.anthropic.test/v1/messages", r.Method, r.URL)
	}
	if got := r.Header.Get("Anthropic-Version"); got != "2023-06-01" {
		t.Errorf("anthropic-version %q, want 2023-06-01", got)
	}
	for _, h := range []string{"X-Api-Key", "Authorization"} {
		if v := r.Header.Values(h); len(v) > 0 {
			t.Errorf("the plugin set %s itself; only the host injects credentials", h)
		}
	}
	var body struct {
		Stream bool `json:"stream"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || !body.Stream {
		t.Errorf("request body %s: want stream true", r.Body)
	}
}
