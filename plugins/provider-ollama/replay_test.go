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

// Recorded response bodies: the shared set, recorded from a real Ollama by
// other projects (only its native api-chat-* files: the v1-* ones are the
// OpenAI-compatible endpoint, replayed by provider-openai), and this
// plugin's own hand-written set for cases nobody recorded.
const (
	sharedFixtures = "../testdata/wire/ollama" // the recorded provider responses; see plugins/testdata/README.md
	sharedPrefix   = "api-chat-"
	localFixtures  = "testdata/wire"
)

// allFixtures returns the shared native fixtures and the local ones,
// sorted by name.
func allFixtures(t *testing.T) []sdktest.Fixture {
	t.Helper()
	return sdktest.LoadFixtures(t, func(dir, name string) bool { return dir == localFixtures || strings.HasPrefix(name, sharedPrefix) }, sharedFixtures, localFixtures)
}

func isNDJSON(f sdktest.Fixture) bool {
	return strings.HasPrefix(f.ContentType, "application/x-ndjson")
}

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

// TestReplaySplitReads decodes every recorded stream one byte per read, as
// recorded and with CRLF and LF line ends: the outcome must not change.
func TestReplaySplitReads(t *testing.T) {
	t.Parallel()
	for _, f := range allFixtures(t) {
		if !isNDJSON(f) || f.Status != http.StatusOK {
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
