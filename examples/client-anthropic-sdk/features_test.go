package main

// The SDK's prompt-caching and structured-output calls, unchanged, through
// axon to an Anthropic-format upstream.

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
)

// anthropicCached streams text with usage that reports cache reads and
// writes, as the Messages API does for a request with breakpoints.
func anthropicCached(model, text string) reply {
	return anthropicStream(
		event{"message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_up","type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"cache_creation_input_tokens":1800,"cache_read_input_tokens":900,"output_tokens":1}}}`, model)},
		event{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		event{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, text)},
		event{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		event{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}`},
		event{"message_stop", `{"type":"message_stop"}`},
	)
}

// A system block with cache_control (ttl 1h), built with the SDK's own
// types, reaches the upstream as that block; the cache reads and writes the
// upstream reports come back in the SDK's Usage.
func TestPromptCaching(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, anthropicCached("claude-test-20250101", "Cached answer."))
	ax := oneProvider(t, anthropicProvider, "claude", up)

	params := userSays("What does the manual say about fog?")
	params.System = []anthropic.TextBlockParam{
		{Text: "You are a meteorologist. The manual follows.", CacheControl: anthropic.CacheControlEphemeralParam{TTL: anthropic.CacheControlEphemeralTTLTTL1h}},
		{Text: "Answer in one sentence."},
	}
	_, msg, err := collect(t.Context(), newClient(ax.url, ""), params)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Usage.CacheReadInputTokens != 900 || msg.Usage.CacheCreationInputTokens != 1800 || msg.Usage.InputTokens != 12 {
		t.Errorf("usage %+v: want 12 input, 900 cache reads, 1800 cache writes", msg.Usage)
	}
	reqs := up.received()
	if len(reqs) != 1 {
		t.Fatalf("upstream got %d requests, want 1", len(reqs))
	}
	var body struct {
		System []map[string]any `json:"system"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatalf("upstream body %s: %v", reqs[0].Body, err)
	}
	want := []map[string]any{
		{"type": "text", "text": "You are a meteorologist. The manual follows.", "cache_control": map[string]any{"type": "ephemeral", "ttl": "1h"}},
		{"type": "text", "text": "Answer in one sentence."},
	}
	if d := cmp.Diff(want, body.System); d != "" {
		t.Errorf("system blocks the upstream received (-want +got):\n%s", d)
	}
}

// output_config.format (a JSON Schema) reaches the upstream as the SDK sent
// it, and the JSON answer comes back as the message's text.
func TestStructuredOutput(t *testing.T) {
	t.Parallel()
	const answer = `{"city":"Rome","celsius":21}`
	up := newUpstream(t, anthropicText("claude-test-20250101", 30, answer))
	ax := oneProvider(t, anthropicProvider, "claude", up)

	schema := map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"city": map[string]any{"type": "string"}, "celsius": map[string]any{"type": "integer"}},
		"required":             []any{"city", "celsius"},
		"additionalProperties": false,
	}
	params := userSays("The weather in Rome, as JSON.")
	params.OutputConfig = anthropic.OutputConfigParam{Format: anthropic.JSONOutputFormatParam{Schema: schema}}
	_, msg, err := collect(t.Context(), newClient(ax.url, ""), params)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]block{{Type: "text", Text: answer}}, blocksOf(t, msg.Content)); d != "" {
		t.Errorf("content (-want +got):\n%s", d)
	}
	reqs := up.received()
	if len(reqs) != 1 {
		t.Fatalf("upstream got %d requests, want 1", len(reqs))
	}
	checkSchemaSent(t, reqs[0], schema)
}

// checkSchemaSent checks that the upstream request r asked, in
// output_config.format, for a json_schema answer matching schema.
func checkSchemaSent(t *testing.T, r request, schema map[string]any) {
	t.Helper()
	var body struct {
		OutputConfig struct {
			Format struct {
				Type   string         `json:"type"`
				Schema map[string]any `json:"schema"`
			} `json:"format"`
		} `json:"output_config"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("upstream body %s: %v", r.Body, err)
	}
	if body.OutputConfig.Format.Type != "json_schema" {
		t.Errorf("upstream output_config.format.type %q, want json_schema: %s", body.OutputConfig.Format.Type, r.Body)
	}
	if d := cmp.Diff(schema, body.OutputConfig.Format.Schema); d != "" {
		t.Errorf("schema the upstream received (-want +got):\n%s", d)
	}
}
