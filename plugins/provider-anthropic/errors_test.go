package main

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sdktest"
)

func TestHTTPErrorClass(t *testing.T) {
	t.Parallel()
	envelope := func(typ, msg string) string {
		return `{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"}}`
	}
	tests := map[string]struct {
		status int
		header http.Header
		body   string
		want   sdk.Class
	}{
		"400 invalid request":       {400, nil, envelope("invalid_request_error", "messages: field required"), sdk.ClassPermanent},
		"400 prompt too long":       {400, nil, envelope("invalid_request_error", "prompt is too long: 209924 tokens > 200000 maximum"), sdk.ClassContextOverflow},
		"400 usage limits":          {400, nil, envelope("invalid_request_error", "You have reached your specified API usage limits."), sdk.ClassQuotaExhausted},
		"401 authentication":        {401, nil, envelope("authentication_error", "invalid x-api-key"), sdk.ClassAuthRequired},
		"401 body not json":         {401, nil, "Unauthorized", sdk.ClassAuthRequired},
		"402 no body":               {402, nil, "", sdk.ClassQuotaExhausted},
		"403 permission":            {403, nil, envelope("permission_error", "no access"), sdk.ClassAuthRequired},
		"404 model":                 {404, nil, envelope("not_found_error", "model: x"), sdk.ClassPermanent},
		"408 timeout, no body":      {408, nil, "", sdk.ClassTransient},
		"413 html":                  {413, nil, "<html>too large</html>", sdk.ClassContextOverflow},
		"413 typed":                 {413, nil, envelope("request_too_large", "Request exceeds the maximum size"), sdk.ClassContextOverflow},
		"422 unknown 4xx":           {422, nil, "", sdk.ClassPermanent},
		"429 rate limit":            {429, nil, envelope("rate_limit_error", "slow down"), sdk.ClassTransient},
		"429 untyped":               {429, nil, "", sdk.ClassTransient},
		"500 api error":             {500, nil, envelope("api_error", "oops"), sdk.ClassTransient},
		"502 gateway html":          {502, nil, "<html>Bad Gateway</html>", sdk.ClassTransient},
		"504 timeout":               {504, nil, envelope("timeout_error", "timeout"), sdk.ClassTransient},
		"529 overloaded":            {529, nil, envelope("overloaded_error", "Overloaded"), sdk.ClassTransient},
		"529 untyped":               {529, nil, "", sdk.ClassTransient},
		"should-retry true on 400":  {400, http.Header{"X-Should-Retry": {"true"}}, envelope("invalid_request_error", "x"), sdk.ClassTransient},
		"should-retry false on 529": {529, http.Header{"X-Should-Retry": {"false"}}, envelope("overloaded_error", "x"), sdk.ClassPermanent},
		"should-retry true, 401":    {401, http.Header{"X-Should-Retry": {"true"}}, envelope("authentication_error", "x"), sdk.ClassAuthRequired},
		"should-retry false on 429": {429, http.Header{"X-Should-Retry": {"FALSE"}}, envelope("rate_limit_error", "x"), sdk.ClassPermanent},
		"spend limit details":       {429, nil, `{"type":"error","error":{"type":"rate_limit_error","message":"x","details":{"error_code":"enforced_spend_limit_reached"}}}`, sdk.ClassQuotaExhausted},
		"details null":              {429, nil, `{"type":"error","error":{"details":null,"type":"rate_limit_error","message":"x"}}`, sdk.ClassTransient},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := tc.header
			if h == nil {
				h = http.Header{}
			}
			e := httpError(tc.status, h, []byte(tc.body), fixedNow)
			if e.Class != tc.want || e.Status != tc.status {
				t.Errorf("got class %s status %d, want %s %d", e.Class, e.Status, tc.want, tc.status)
			}
		})
	}
}

// TestErrorMessagesAreSafe: the vendor's message text never leaves the
// plugin, and an error type an upstream fills with junk is dropped.
func TestErrorMessagesAreSafe(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body string
		want string
	}{
		"typed":           {`{"type":"error","error":{"type":"invalid_request_error","message":"secret prompt text sk-ant-123"}}`, "anthropic invalid_request_error (HTTP 400)"},
		"junk type":       {`{"type":"error","error":{"type":"<script>alert(1)</script>","message":"x"}}`, "anthropic error (HTTP 400)"},
		"overlong type":   {`{"type":"error","error":{"type":"` + strings.Repeat("a", 49) + `","message":"x"}}`, "anthropic error (HTTP 400)"},
		"not an envelope": {`sk-ant-123 is not valid`, "anthropic error (HTTP 400)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := httpError(400, http.Header{}, []byte(tc.body), fixedNow)
			if e.Message != tc.want {
				t.Errorf("message %q, want %q", e.Message, tc.want)
			}
			if strings.Contains(e.Error(), "sk-ant") || strings.Contains(e.Error(), "secret") {
				t.Errorf("error %q leaks the body", e.Error())
			}
		})
	}
}

func TestStreamErrorClass(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body *wireErrorBody
		want sdk.Class
	}{
		"overloaded":      {&wireErrorBody{Type: "overloaded_error"}, sdk.ClassTransient},
		"api error":       {&wireErrorBody{Type: "api_error"}, sdk.ClassTransient},
		"rate limit":      {&wireErrorBody{Type: "rate_limit_error"}, sdk.ClassTransient},
		"invalid request": {&wireErrorBody{Type: "invalid_request_error"}, sdk.ClassPermanent},
		"prompt too long": {&wireErrorBody{Type: "invalid_request_error", Message: "prompt is too long: 1 tokens > 0 maximum"}, sdk.ClassContextOverflow},
		"billing":         {&wireErrorBody{Type: "billing_error"}, sdk.ClassQuotaExhausted},
		"auth":            {&wireErrorBody{Type: "authentication_error"}, sdk.ClassAuthRequired},
		"unknown type":    {&wireErrorBody{Type: "brand_new_error"}, sdk.ClassTransient},
		"no error object": {nil, sdk.ClassTransient},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := streamError(tc.body); got.Class != tc.want || got.Status != http.StatusOK {
				t.Errorf("got %s status %d, want %s status 200", got.Class, got.Status, tc.want)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		header http.Header
		want   time.Duration
	}{
		"none":                 {http.Header{}, 0},
		"seconds":              {http.Header{"Retry-After": {"17"}}, 17 * time.Second},
		"fractional seconds":   {http.Header{"Retry-After": {"0.25"}}, 250 * time.Millisecond},
		"milliseconds":         {http.Header{"Retry-After-Ms": {"1500"}}, 1500 * time.Millisecond},
		"ms wins over seconds": {http.Header{"Retry-After-Ms": {"200"}, "Retry-After": {"9"}}, 200 * time.Millisecond},
		"bad ms falls back":    {http.Header{"Retry-After-Ms": {"soon"}, "Retry-After": {"3"}}, 3 * time.Second},
		"http date":            {http.Header{"Retry-After": {fixedNow.Add(42 * time.Second).Format(http.TimeFormat)}}, 42 * time.Second},
		"http date in past":    {http.Header{"Retry-After": {fixedNow.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		"zero":                 {http.Header{"Retry-After": {"0"}}, 0},
		"negative":             {http.Header{"Retry-After": {"-5"}}, 0},
		"garbage":              {http.Header{"Retry-After": {"tomorrow-ish"}}, 0},
		"infinite capped":      {http.Header{"Retry-After": {"+Inf"}}, sdk.MaxRetryAfter},
		"huge capped":          {http.Header{"Retry-After-Ms": {"1e30"}}, sdk.MaxRetryAfter},
		"nan ignored":          {http.Header{"Retry-After": {"NaN"}}, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, sdk.RetryAfter(tc.header, fixedNow)); diff != "" {
				t.Errorf("retryAfter (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKeyShapedTypeStaysOut: an upstream that puts a key-shaped string in
// its error type (hostile, or echoing the request) does not get it into the
// error the caller sees, which reaches the 502, the trail and the WAL.
func TestKeyShapedTypeStaysOut(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-api03-Xy7Kp2Qm9Lw4Rt6Vb1Nc"
	tests := map[string]struct {
		status      int
		contentType string
		body, want  string
	}{
		"http error": {401, "application/json",
			`{"type":"error","error":{"type":"` + key + `","message":"invalid x-api-key"}}`,
			"anthropic error (HTTP 401)"},
		"in-stream error": {200, "text/event-stream",
			"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
				"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"" + key + "\",\"message\":\"x\"}}\n\n",
			"anthropic error (in-band, HTTP 200)"},
		"random token as type": {429, "application/json",
			`{"type":"error","error":{"type":"Q2w3E4r5T6y7U8i9O0pAsDfGhJkLzXcV","message":"x"}}`,
			"anthropic error (HTTP 429)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
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
			if strings.Contains(err.Error(), "sk-ant") || strings.Contains(err.Error(), "Q2w3E4r5") {
				t.Errorf("error %q carries the upstream's key-shaped type", err)
			}
		})
	}
}
