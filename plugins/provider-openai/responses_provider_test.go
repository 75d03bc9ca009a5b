package main

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// serveResponsesFixture answers every request with a recorded Responses
// stream, after check has looked at it.
func serveResponsesFixture(t *testing.T, rel string, check func(r *http.Request, body []byte)) http.Handler {
	body := readFixture(t, rel)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("read request body: %v", err)
		}
		if check != nil {
			check(r, got)
		}
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.Write(body)
	})
}

// TestResponsesOutgoingRequest checks what reaches the egress with api =
// "responses": POST to {base_url}/responses, the body as translated, the
// configured extra headers, and no credential header.
func TestResponsesOutgoingRequest(t *testing.T) {
	t.Parallel()
	var gotPath string
	p, fe := configure(t, serveResponsesFixture(t, "openai/responses-text-stream.sse", func(r *http.Request, _ []byte) { gotPath = r.URL.Path }),
		`{"base_url":"https://api.openai.com/v1/","model":"gpt-4o","api":"responses","headers":{"OpenAI-Beta":"x"}}`)
	req := userRequest("Say hi in Portuguese")
	req.System = sdk.SystemPrompt("You are a helpful assistant")
	events, err := generate(t, p, req)
	if err != nil {
		t.Fatal(err)
	}
	sdktest.CheckEvents(t, events)
	recs := fe.Requests()
	if len(recs) != 1 {
		t.Fatalf("%d requests, want 1", len(recs))
	}
	rec := recs[0]
	if rec.Method != http.MethodPost || rec.URL != "https://api.openai.com/v1/responses" {
		t.Errorf("%s %s, want POST https://api.openai.com/v1/responses", rec.Method, rec.URL)
	}
	if gotPath != "/v1/responses" {
		t.Errorf("upstream saw path %q", gotPath)
	}
	for _, h := range []string{"Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key"} {
		if v := rec.Header.Get(h); v != "" {
			t.Errorf("plugin set credential header %s: %q", h, v)
		}
	}
	for h, want := range map[string]string{"Content-Type": "application/json", "Openai-Beta": "x"} {
		if got := rec.Header.Get(h); got != want {
			t.Errorf("header %s = %q, want %q", h, got, want)
		}
	}
	wire, err := buildResponsesRequest(p.cfg, req)
	if err != nil {
		t.Fatal(err)
	}
	want, err := sdk.EncodeJSON(wire)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(rec.Body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	var sent map[string]any
	if err := json.Unmarshal(rec.Body, &sent); err != nil {
		t.Fatal(err)
	}
	if sent["stream"] != true || sent["store"] != false || sent["instructions"] != "You are a helpful assistant" {
		t.Errorf("stream/store/instructions not as expected: %s", rec.Body)
	}
}

// TestResponsesStopSequencesRefused: the Responses API has no stop
// sequences; a request with some fails before anything is sent, instead
// of dropping them silently.
func TestResponsesStopSequencesRefused(t *testing.T) {
	t.Parallel()
	p, fe := configure(t, serveResponsesFixture(t, "openai/responses-text-stream.sse", nil), `{"model":"gpt-4o","api":"responses"}`)
	req := userRequest("hi")
	req.StopSequences = []string{"END"}
	events, err := generate(t, p, req)
	if sdk.ClassOf(err) != sdk.ClassPermanent {
		t.Fatalf("got %v, want a permanent error", err)
	}
	if len(events) != 0 || len(fe.Requests()) != 0 {
		t.Errorf("%d events, %d requests; want none", len(events), len(fe.Requests()))
	}
}

// TestResponsesReasoningRoundTrip: the encrypted reasoning a reply hands
// out, kept as the host keeps it, goes back on the next turn as the
// reasoning item it came from.
func TestResponsesReasoningRoundTrip(t *testing.T) {
	t.Parallel()
	p, _ := configure(t, serveResponsesFixture(t, "openai/responses-reasoning-summary-function-call-stream.sse", nil),
		`{"model":"gpt-5","api":"responses","reasoning_effort":"high"}`)
	events, err := generate(t, p, userRequest("What's the weather in Florence, Italy?"))
	if err != nil {
		t.Fatal(err)
	}
	var parts []sdk.Part
	for _, ev := range events {
		switch {
		case ev.Type == sdk.EventReasoningDelta && ev.Redacted != "":
			parts = append(parts, sdk.Reasoning{Redacted: ev.Redacted})
		case ev.Type == sdk.EventToolCall:
			parts = append(parts, *ev.ToolCall)
		}
	}
	req := &sdk.Request{Messages: []sdk.Message{user(text("What's the weather in Florence, Italy?")), assistant(parts...), toolTurn(result("call_zgUaIBRPTwxxOusyyKw5NVMH", "18°C"))}}
	wire, err := buildResponsesRequest(p.cfg, req)
	if err != nil {
		t.Fatal(err)
	}
	item, ok := wire.Input[1].(reasoningItem)
	if !ok {
		t.Fatalf("input[1] is %T, want a reasoning item", wire.Input[1])
	}
	if item.ID != "rs_017e85da2ae23b69016a3c1251dcec819daf72930a854fd4d1" || len(item.EncryptedContent) < 100 || item.EncryptedContent[:10] != "gAAAAABqPB" {
		t.Errorf("reasoning item %q / %.20q…", item.ID, item.EncryptedContent)
	}
	if call, ok := wire.Input[2].(functionCallItem); !ok || call.CallID != "call_zgUaIBRPTwxxOusyyKw5NVMH" {
		t.Errorf("input[2] = %#v, want the function call", wire.Input[2])
	}
}

func TestResponsesProviderConformance(t *testing.T) {
	t.Run("text", func(t *testing.T) {
		sdktest.ProviderConformance(t, sdktest.ProviderSuite{
			New:      func() sdk.Provider { return &openai{} },
			Config:   json.RawMessage(`{"model":"gpt-4o","api":"responses"}`),
			Upstream: serveResponsesFixture(t, "openai/responses-text-stream.sse", nil),
		})
	})
	t.Run("parallel tool calls", func(t *testing.T) {
		sdktest.ProviderConformance(t, sdktest.ProviderSuite{
			New:      func() sdk.Provider { return &openai{} },
			Config:   json.RawMessage(`{"model":"gpt-4o","api":"responses"}`),
			Upstream: serveResponsesFixture(t, "openai/responses-parallel-function-calls-stream.sse", nil),
			Request: &sdk.Request{
				Messages: []sdk.Message{user(text("Add and multiply 2 and 3."))},
				Tools: []sdk.ToolSpec{
					{Name: "add", InputSchema: json.RawMessage(`{"type":"object"}`)},
					{Name: "multiply", InputSchema: json.RawMessage(`{"type":"object"}`)},
				},
			},
		})
	})
}
