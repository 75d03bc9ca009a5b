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

func TestInfoDeclaresOutputAndInlineMedia(t *testing.T) {
	t.Parallel()
	info := (&gemini{}).Info()
	if !info.Output {
		t.Error("Output is false: a JSON Schema goes out as responseJsonSchema, which Gemini enforces")
	}
	if !info.InlineMedia {
		t.Error("InlineMedia is false: fileData takes only Gemini's own uploads, so the host must fetch a client's URL")
	}
}

// TestGenerateSendsStructuredOutput: a request with structured output
// reaches the upstream with generationConfig.responseMimeType and, for a
// schema, responseJsonSchema as given; the streamed JSON answer comes back
// as text that is one JSON object.
func TestGenerateSendsStructuredOutput(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"city":{"type":"string"},"celsius":{"type":"number"},"sky":{"enum":["sun","rain"]}},"required":["city","celsius","sky"]}`
	tests := map[string]struct {
		output     *sdk.Output
		wantSchema string // responseJsonSchema sent, "" for none
	}{
		"json object": {&sdk.Output{Kind: sdk.OutputJSON}, ""},
		"json schema": {&sdk.Output{Kind: sdk.OutputJSONSchema, Name: "forecast", Strict: true, Schema: json.RawMessage(schema)}, schema},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			egress := sdktest.NewFakeEgress(t, sdktest.LoadFixture(t, filepath.Join(localFixtures, "stream-json-schema-answer.sse")))
			var rec sdktest.Recorder
			req := &sdk.Request{
				Messages: []sdk.Message{user("Weather in Rome as JSON")},
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
				GenerationConfig struct {
					ResponseMimeType   string          `json:"responseMimeType"`
					ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
					ResponseSchema     json.RawMessage `json:"responseSchema"`
				} `json:"generationConfig"`
			}
			if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			g := body.GenerationConfig
			if g.ResponseMimeType != "application/json" {
				t.Errorf("responseMimeType %q, want application/json", g.ResponseMimeType)
			}
			if diff := cmp.Diff(tc.wantSchema, string(g.ResponseJSONSchema)); diff != "" {
				t.Errorf("responseJsonSchema sent (-want +got):\n%s", diff)
			}
			if g.ResponseSchema != nil {
				t.Errorf("responseSchema %s sent: the OpenAPI subset must not be, alongside or instead", g.ResponseSchema)
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
