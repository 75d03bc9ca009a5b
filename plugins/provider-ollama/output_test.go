package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// TestGenerateSendsFormat: a request with structured output reaches the
// upstream with format set, and the recorded answer Ollama gave to format
// "json" comes back as text that is one JSON object.
func TestGenerateSendsFormat(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`
	tests := map[string]struct {
		output *sdk.Output
		want   string // the format field sent upstream
	}{
		"json object": {&sdk.Output{Kind: sdk.OutputJSON}, `"json"`},
		"json schema": {&sdk.Output{Kind: sdk.OutputJSONSchema, Name: "answer", Strict: true, Schema: json.RawMessage(schema)}, schema},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			egress := sdktest.NewFakeEgress(t, sdktest.LoadFixture(t, filepath.Join(sharedFixtures, "api-chat-format-json-stream.txt")))
			var rec sdktest.Recorder
			req := &sdk.Request{
				Messages: []sdk.Message{user(text("How many feet are in a nautical mile? Respond with JSON containing the answer."))},
				Output:   tc.output,
			}
			if err := configured(t, egress, testConfig).Generate(context.Background(), req, &rec); err != nil {
				t.Fatalf("Generate: %v", err)
			}
			reqs := egress.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d upstream requests, want 1", len(reqs))
			}
			var body struct {
				Format json.RawMessage `json:"format"`
			}
			if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(body.Format)); diff != "" {
				t.Errorf("format sent upstream (-want +got):\n%s", diff)
			}
			var answer strings.Builder
			for _, ev := range rec.Events() {
				if ev.Type == sdk.EventTextDelta {
					answer.WriteString(ev.Text)
				}
			}
			var obj map[string]any
			if err := json.Unmarshal([]byte(answer.String()), &obj); err != nil {
				t.Errorf("answer %q is not a JSON object: %v", answer.String(), err)
			}
		})
	}
}
