package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// upstream is a Messages API stand-in that streams a short reply and keeps
// the headers it received.
type upstream struct {
	mu      sync.Mutex
	headers []http.Header
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.headers = append(u.headers, r.Header.Clone())
	u.mu.Unlock()
	if r.URL.Path != "/v1/messages" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range [][2]string{
		{"message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"usage":{"input_tokens":9,"output_tokens":1}}}`},
		{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" there"}}`},
		{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`},
		{"message_stop", `{"type":"message_stop"}`},
	} {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e[0], e[1])
		w.(http.Flusher).Flush()
	}
}

func TestStreamsThroughEgressWithoutTheKey(t *testing.T) {
	up := &upstream{}
	egress := sdktest.NewFakeEgress(t, up)
	p := &provider{}
	cfg := sdk.Config{Values: []byte(`{"base_url":"https://api.anthropic.com","model":"claude-test","max_tokens":64}`), Egress: egress}
	if err := p.Configure(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	var got []sdk.Event
	err := p.Generate(context.Background(), &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "Hi"}}}}},
		sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error { got = append(got, ev); return nil }))
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	want := []sdk.Event{
		{Type: sdk.EventStart, Model: "claude-test"},
		{Type: sdk.EventTextDelta, Text: "Hello"},
		{Type: sdk.EventTextDelta, Text: " there"},
		{Type: sdk.EventUsage, Usage: &sdk.Usage{InputTokens: sdk.Tokens(9), OutputTokens: sdk.Tokens(3)}},
		{Type: sdk.EventFinish, Finish: sdk.FinishStop},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	// The SDK did send the placeholder (so stripping is what removed it),
	// and nothing of it reached the upstream.
	sent := egress.Requests()
	if len(sent) != 1 {
		t.Fatalf("%d requests through the egress, want 1 (SDK retries must be off)", len(sent))
	}
	if !strings.Contains(fmt.Sprint(sent[0].Header), placeholderKey) {
		t.Errorf("the SDK sent no placeholder key; headers %v", sent[0].Header)
	}
	for _, h := range up.headers {
		if strings.Contains(fmt.Sprint(h), placeholderKey) {
			t.Errorf("the placeholder key reached the upstream: %v", h)
		}
	}
}

func TestConformance(t *testing.T) {
	sdktest.ProviderConformance(t, sdktest.ProviderSuite{
		New:      func() sdk.Provider { return &provider{} },
		Config:   []byte(`{"model":"claude-test"}`),
		Upstream: &upstream{},
	})
}

// System parts keep their prompt-cache breakpoints on the wire.
func TestSystemCacheBreakpoints(t *testing.T) {
	egress := sdktest.NewFakeEgress(t, &upstream{})
	p := &provider{}
	cfg := sdk.Config{Values: []byte(`{"base_url":"https://api.anthropic.com","model":"claude-test","max_tokens":64}`), Egress: egress}
	if err := p.Configure(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	req := &sdk.Request{
		System:   []sdk.Text{{Text: "a", Cache: sdk.Cache1h}, {Text: "b", Cache: sdk.CacheDefault}, {Text: "c"}},
		Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: "Hi"}}}},
	}
	if err := p.Generate(context.Background(), req, sdk.SinkFunc(func(context.Context, sdk.Event) error { return nil })); err != nil {
		t.Fatalf("Generate: %v", err)
	}
	sent := egress.Requests()
	if len(sent) != 1 {
		t.Fatalf("%d requests, want 1", len(sent))
	}
	var body struct {
		System []map[string]any `json:"system"`
	}
	if err := json.Unmarshal(sent[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"type": "text", "text": "a", "cache_control": map[string]any{"type": "ephemeral", "ttl": "1h"}},
		{"type": "text", "text": "b", "cache_control": map[string]any{"type": "ephemeral"}},
		{"type": "text", "text": "c"},
	}
	if diff := cmp.Diff(want, body.System); diff != "" {
		t.Errorf("system blocks (-want +got):\n%s", diff)
	}
}
