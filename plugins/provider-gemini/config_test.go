package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

// TestConfigure checks the attribute validation a user meets first.
func TestConfigure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, values string
		ok           bool
	}{
		{"defaults", `{}`, true},
		{"full", `{"base_url":"https://proxy.example/gemini/","model":"gemini-2.5-flash","max_tokens":100,"thinking_budget":-1,"include_thoughts":true,"headers":{"X-Trace":"1"}}`, true},
		{"api version in base_url", `{"base_url":"https://generativelanguage.googleapis.com/v1beta"}`, false},
		{"key in base_url", `{"base_url":"https://generativelanguage.googleapis.com?key=abc"}`, false},
		{"not a URL", `{"base_url":"generativelanguage.googleapis.com"}`, false},
		{"negative max_tokens", `{"max_tokens":-1}`, false},
		{"thinking_budget below -1", `{"thinking_budget":-2}`, false},
		{"credential header", `{"headers":{"x-goog-api-key":"abc"}}`, false},
		{"unknown type", `{"max_tokens":"many"}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := (&gemini{}).Configure(context.Background(), sdk.Config{Values: json.RawMessage(tc.values), Egress: sdktest.NewFakeEgress(t, http.NotFoundHandler())})
			if tc.ok != (err == nil) {
				t.Fatalf("Configure(%s) = %v, want ok=%v", tc.values, err, tc.ok)
			}
			if err != nil && !errors.Is(err, sdk.ErrPermanent) {
				t.Errorf("error %v is not permanent", err)
			}
		})
	}
}

// TestSchemaDefaults checks the schema's defaults decode to the plugin's
// own defaults, as the host applies them.
func TestSchemaDefaults(t *testing.T) {
	t.Parallel()
	values, err := sdktest.ApplyDefaults(schema(), json.RawMessage(`{"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := parseConfig(sdk.Config{Values: values})
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != defaultBaseURL || c.MaxTokens != 0 || c.ThinkingBudget != nil || c.IncludeThoughts {
		t.Errorf("defaults decoded to %+v", c)
	}
	if got := (&gemini{}).Info().Auth; got != (sdk.Auth{Scheme: sdk.AuthHeader, Name: "x-goog-api-key"}) {
		t.Errorf("Info().Auth = %+v", got)
	}
}

// TestGenerateModel checks the model in the URL: the request's, else the
// configured one, with a "models/" prefix tolerated, and none is an error.
func TestGenerateModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, config, model, wantPath string
	}{
		{"configured", `{"model":"gemini-2.5-flash"}`, "", "/v1beta/models/gemini-2.5-flash:streamGenerateContent"},
		{"request wins", `{"model":"gemini-2.5-flash"}`, "gemini-2.5-pro", "/v1beta/models/gemini-2.5-pro:streamGenerateContent"},
		{"models/ prefix", `{}`, "models/gemini-2.0-flash", "/v1beta/models/gemini-2.0-flash:streamGenerateContent"},
		{"base_url path prefix", `{"base_url":"https://proxy.example/google","model":"m"}`, "", "/google/v1beta/models/m:streamGenerateContent"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var gotPath string
			egress := sdktest.NewFakeEgress(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotPath = r.URL.Path
				w.Header().Set("Content-Type", "text/event-stream")
				w.Write([]byte("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}]},\"finishReason\":\"STOP\"}]}\r\n\r\n"))
			}))
			req := &sdk.Request{Model: tc.model, Messages: []sdk.Message{user("hi")}}
			if err := configured(t, egress, tc.config).Generate(context.Background(), req, &sdktest.Recorder{}); err != nil {
				t.Fatal(err)
			}
			if gotPath != tc.wantPath {
				t.Errorf("path %q, want %q", gotPath, tc.wantPath)
			}
		})
	}
	err := configured(t, sdktest.NewFakeEgress(t, http.NotFoundHandler()), `{}`).Generate(context.Background(), &sdk.Request{Messages: []sdk.Message{user("hi")}}, &sdktest.Recorder{})
	if !errors.Is(err, sdk.ErrPermanent) {
		t.Errorf("no model: got %v, want permanent", err)
	}
}

// TestClassifyDetails covers error bodies the fixtures do not: in-band
// errors, fractional retry delays, a zero quota, and HTTP-date hints.
func TestClassifyDetails(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		status    int
		header    http.Header
		body      string
		wantClass sdk.Class
		wantRetry time.Duration
	}{
		{"fractional retryDelay", 429, nil, `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}]}}`, sdk.ClassTransient, 1500 * time.Millisecond},
		{"zero quota is a cap", 429, nil, `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateContentInputTokensPerModelPerMinute-FreeTier","quotaValue":"0"}]}]}}`, sdk.ClassQuotaExhausted, 0},
		{"billing disabled", 403, nil, `{"error":{"code":403,"status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"BILLING_DISABLED"}]}}`, sdk.ClassQuotaExhausted, 0},
		{"http-date retry-after", 503, http.Header{"Retry-After": {"Thu, 01 Jan 2026 00:00:30 GMT"}}, `{}`, sdk.ClassTransient, 30 * time.Second},
		{"deadline exceeded", 504, nil, `{"error":{"code":504,"status":"DEADLINE_EXCEEDED"}}`, sdk.ClassTransient, 0},
		{"failed precondition", 400, nil, `{"error":{"code":400,"status":"FAILED_PRECONDITION"}}`, sdk.ClassPermanent, 0},
		{"413 without a body", 413, nil, ``, sdk.ClassContextOverflow, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := httpError(tc.status, tc.header, []byte(tc.body), now)
			if e.Class != tc.wantClass || e.RetryAfter != tc.wantRetry {
				t.Errorf("got %s retry %v, want %s retry %v", e.Class, e.RetryAfter, tc.wantClass, tc.wantRetry)
			}
		})
	}
	// An error chunk without a code is the server failing mid-reply.
	if e := streamError(&wireErrorBody{Message: "boom"}); e.Class != sdk.ClassTransient {
		t.Errorf("in-band error without a code: %s, want transient", e.Class)
	}
}

// TestKeyShapedStatusStaysOut: an upstream that puts a key-shaped string in
// its error status or a reason (hostile, or echoing the request's key) does
// not get it into the error the caller sees, which reaches the 502, the
// trail and the WAL.
func TestKeyShapedStatusStaysOut(t *testing.T) {
	t.Parallel()
	const key = "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
	tests := []struct {
		name, contentType string
		status            int
		body, want        string
	}{
		{"http error", "application/json", 400,
			`{"error":{"code":400,"message":"API key not valid","status":"` + key + `"}}`,
			"gemini: HTTP 400"},
		{"http error in an array", "application/json", 429,
			`[{"error":{"code":429,"status":"805757c5974a71270fa9f9133a54d065"}}]`,
			"gemini: HTTP 429"},
		{"in-stream error", "text/event-stream", 200,
			"data: {\"error\":{\"code\":503,\"status\":\"" + key + "\"}}\r\n\r\n",
			"gemini: error inside the response (code 503)"},
		{"block reason", "text/event-stream", 200,
			"data: {\"promptFeedback\":{\"blockReason\":\"" + key + "\"}}\r\n\r\n",
			"gemini: prompt blocked (unknown)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			egress := sdktest.NewFakeEgress(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			err := configured(t, egress, testConfig).Generate(context.Background(), replayRequest(), &sdktest.Recorder{})
			var e *sdk.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want an *sdk.Error", err)
			}
			if e.Message != tc.want {
				t.Errorf("message %q, want %q", e.Message, tc.want)
			}
			if strings.Contains(err.Error(), "AIza") || strings.Contains(err.Error(), "805757c5") {
				t.Errorf("error %q carries the upstream's key-shaped status", err)
			}
		})
	}
}
