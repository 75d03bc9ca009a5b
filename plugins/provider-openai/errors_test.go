package main

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

func TestHTTPError(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name    string
		status  int
		headers map[string]string
		body    string
		want    errorSummary
	}{
		{"insufficient_quota on 429", 429, nil,
			`{"error":{"type":"insufficient_quota","code":"insufficient_quota"}}`,
			errorSummary{Class: sdk.ClassQuotaExhausted, Status: 429}},
		{"spend limit code", 429, nil,
			`{"error":{"type":"requests","code":"project_spend_limit_exceeded"}}`,
			errorSummary{Class: sdk.ClassQuotaExhausted, Status: 429}},
		{"rate limit with retry-after seconds", 429, map[string]string{"Retry-After": "1.5"},
			`{"error":{"code":"rate_limit_exceeded"}}`,
			errorSummary{Class: sdk.ClassTransient, Status: 429, RetryAfter: 1500 * time.Millisecond}},
		{"retry-after as an HTTP date", 503, map[string]string{"Retry-After": "Fri, 02 Jan 2026 03:04:35 GMT"}, ``,
			errorSummary{Class: sdk.ClassTransient, Status: 503, RetryAfter: 30 * time.Second}},
		{"retry-after date measured against Date", 503,
			map[string]string{"Retry-After": "Fri, 02 Jan 2026 03:04:35 GMT", "Date": "Fri, 02 Jan 2026 03:04:25 GMT"}, ``,
			errorSummary{Class: sdk.ClassTransient, Status: 503, RetryAfter: 10 * time.Second}},
		{"retry-after-ms wins", 429, map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, ``,
			errorSummary{Class: sdk.ClassTransient, Status: 429, RetryAfter: 250 * time.Millisecond}},
		{"junk retry hints are none", 429, map[string]string{"Retry-After-Ms": "soon", "Retry-After": "-3"}, ``,
			errorSummary{Class: sdk.ClassTransient, Status: 429}},
		{"reset of the empty bucket", 429,
			map[string]string{"X-Ratelimit-Reset-Requests": "20s", "X-Ratelimit-Remaining-Requests": "0", "X-Ratelimit-Reset-Tokens": "1m0s", "X-Ratelimit-Remaining-Tokens": "900"},
			`{"error":{"code":"rate_limit_exceeded"}}`,
			errorSummary{Class: sdk.ClassTransient, Status: 429, RetryAfter: 20 * time.Second}},
		{"no hint on a permanent error", 400, map[string]string{"Retry-After": "5", "X-Ratelimit-Reset-Tokens": "1s"},
			`{"error":{"code":"unsupported_parameter"}}`,
			errorSummary{Class: sdk.ClassPermanent, Status: 400}},
		{"openrouter reset in epoch ms", 429, map[string]string{"X-Ratelimit-Reset": "1767323075000"}, ``,
			errorSummary{Class: sdk.ClassTransient, Status: 429, RetryAfter: 30 * time.Second}},
		{"gemini retryDelay", 429, nil,
			`{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"12.5s"}]}}`,
			errorSummary{Class: sdk.ClassTransient, Status: 429, RetryAfter: 12500 * time.Millisecond}},
		{"gemini array shape", 404, nil, `[{"error":{"code":404,"status":"NOT_FOUND"}}]`,
			errorSummary{Class: sdk.ClassPermanent, Status: 404}},
		{"gemini bad key on 400", 400, nil,
			`[{"error":{"code":400,"status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}]`,
			errorSummary{Class: sdk.ClassAuthRequired, Status: 400}},
		{"gemini overflow by message", 400, nil,
			`{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."}}`,
			errorSummary{Class: sdk.ClassContextOverflow, Status: 400}},
		{"overflow phrase ignored outside 400", 500, nil, `{"error":{"message":"maximum context length"}}`,
			errorSummary{Class: sdk.ClassTransient, Status: 500}},
		{"401", 401, nil, ``, errorSummary{Class: sdk.ClassAuthRequired, Status: 401}},
		{"403", 403, nil, `{"error":{"message":"Country, region, or territory not supported"}}`, errorSummary{Class: sdk.ClassAuthRequired, Status: 403}},
		{"402", 402, nil, ``, errorSummary{Class: sdk.ClassQuotaExhausted, Status: 402}},
		{"408", 408, nil, ``, errorSummary{Class: sdk.ClassTransient, Status: 408}},
		{"409", 409, nil, ``, errorSummary{Class: sdk.ClassTransient, Status: 409}},
		{"413", 413, nil, ``, errorSummary{Class: sdk.ClassContextOverflow, Status: 413}},
		{"422", 422, nil, `{"detail":"bad"}`, errorSummary{Class: sdk.ClassPermanent, Status: 422}},
		{"498", 498, nil, ``, errorSummary{Class: sdk.ClassTransient, Status: 498}},
		{"529", 529, nil, `{"type":"error","error":{"type":"overloaded_error"}}`, errorSummary{Class: sdk.ClassTransient, Status: 529}},
		{"quota code beats 400", 400, nil, `{"error":{"code":"insufficient_quota"}}`, errorSummary{Class: sdk.ClassQuotaExhausted, Status: 400}},
		{"should-retry true on 400", 400, map[string]string{"X-Should-Retry": "true"}, ``, errorSummary{Class: sdk.ClassTransient, Status: 400}},
		{"should-retry false on 500", 500, map[string]string{"X-Should-Retry": "false"}, ``, errorSummary{Class: sdk.ClassPermanent, Status: 500}},
		{"should-retry leaves auth alone", 401, map[string]string{"X-Should-Retry": "true"}, ``, errorSummary{Class: sdk.ClassAuthRequired, Status: 401}},
		{"ollama string error", 500, nil, `{"error":"model requires more system memory"}`, errorSummary{Class: sdk.ClassTransient, Status: 500}},
		{"openai content_policy_violation", 400, nil,
			`{"error":{"code":"content_policy_violation","message":"Your request was rejected as a result of our safety system.","param":null,"type":"invalid_request_error"}}`,
			errorSummary{Class: sdk.ClassContentFilter, Status: 400}},
		{"azure content_filter, status as a number", 400, nil,
			`{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy.","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"hate":{"filtered":false,"severity":"safe"},"jailbreak":{"filtered":true,"detected":true}}}}}`,
			errorSummary{Class: sdk.ClassContentFilter, Status: 400}},
		{"azure inner code alone", 400, nil,
			`{"error":{"code":"BadRequest","message":"filtered","inner_error":{"code":"ResponsibleAIPolicyViolation"}}}`,
			errorSummary{Class: sdk.ClassContentFilter, Status: 400}},
		{"content filter beats should-retry true", 400, map[string]string{"X-Should-Retry": "true"},
			`{"error":{"code":"content_filter"}}`,
			errorSummary{Class: sdk.ClassContentFilter, Status: 400}},
		{"azure numeric status on another error", 429, nil,
			`{"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation have exceeded the rate limit","status":429}}`,
			errorSummary{Class: sdk.ClassTransient, Status: 429}},
		{"truncated body", 429, nil, `{"error":{"code":"insuff`, errorSummary{Class: sdk.ClassTransient, Status: 429}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for k, v := range c.headers {
				h.Set(k, v)
			}
			got := summarize(httpError(c.status, h, []byte(c.body), now))
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamError(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		body string
		want errorSummary
	}{
		{"groq tool_use_failed", `{"error":{"type":"invalid_request_error","code":"tool_use_failed","status_code":400}}`,
			errorSummary{Class: sdk.ClassPermanent}},
		{"openrouter integer code 502", `{"error":{"code":502,"message":"Provider returned error"}}`,
			errorSummary{Class: sdk.ClassTransient}},
		{"openrouter overflow", `{"error":{"code":400,"message":"This endpoint's maximum context length is 8192 tokens"}}`,
			errorSummary{Class: sdk.ClassContextOverflow}},
		{"in-band quota", `{"error":{"type":"insufficient_quota"}}`, errorSummary{Class: sdk.ClassQuotaExhausted}},
		{"no status at all", `{"error":{"message":"something broke"}}`, errorSummary{Class: sdk.ClassTransient}},
		{"gemini array with retry", `[{"error":{"code":503,"status":"UNAVAILABLE","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"}]}}]`,
			errorSummary{Class: sdk.ClassTransient, RetryAfter: 2 * time.Second}},
		{"not JSON", `oops`, errorSummary{Class: sdk.ClassTransient}},
		{"in-band azure content filter", `{"error":{"code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation"}}}`,
			errorSummary{Class: sdk.ClassContentFilter}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(c.want, summarize(streamError([]byte(c.body)))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorLabelIsSafe(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body, want string
	}{
		{`{"error":{"code":"invalid_api_key","message":"Incorrect API key provided: sk-abc***xyz"}}`, "openai: HTTP 401 invalid_api_key"},
		{`{"error":{"code":"1113","message":"余额不足"}}`, "openai: HTTP 401 1113"},
		{`{"error":{"type":"a type with spaces: and sk-secret","message":"x"}}`, "openai: HTTP 401"},
		{`{"error":"unauthorized","signin_url":"https://ollama.com/connect?key=abc"}`, "openai: HTTP 401"},
	}
	for _, c := range cases {
		e := httpError(401, http.Header{}, []byte(c.body), time.Time{})
		if e.Message != c.want {
			t.Errorf("body %s: message %q, want %q", c.body, e.Message, c.want)
		}
	}
}

// TestKeyShapedCodeStaysOut: an upstream that puts a key-shaped string in
// its error code (hostile, or echoing the request) does not get it into the
// error the caller sees, which reaches the 502, the trail and the WAL; the
// next field that reads as a code names the error instead.
func TestKeyShapedCodeStaysOut(t *testing.T) {
	t.Parallel()
	const key = "sk-proj-AbC123xYz789QwErTy456UiOp0aSdF"
	cases := []struct {
		name, contentType string
		status            int
		body, want        string
	}{
		{"http error code", "application/json", 401,
			`{"error":{"type":"invalid_request_error","code":"` + key + `","message":"bad key"}}`,
			"openai: HTTP 401 invalid_request_error"},
		{"http error, gemini-style status", "application/json", 400,
			`[{"error":{"code":400,"status":"AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"}}]`,
			"openai: HTTP 400"},
		{"in-stream error code", "text/event-stream", 200,
			"event: error\ndata: {\"error\":{\"code\":\"" + key + "\",\"status_code\":429}}\n\n",
			"openai: error inside the response (status 429)"},
		{"random token as code", "application/json", 429,
			`{"error":{"code":"805757c5974a71270fa9f9133a54d065"}}`,
			"openai: HTTP 429"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, _ := configure(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", c.contentType)
				w.WriteHeader(c.status)
				w.Write([]byte(c.body))
			}), `{"model":"m"}`)
			_, err := generate(t, p, userRequest("hi"))
			var se *sdk.Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want an *sdk.Error", err)
			}
			if se.Message != c.want {
				t.Errorf("message %q, want %q", se.Message, c.want)
			}
			for _, leak := range []string{key, "AIza", "805757c5"} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("error %q carries the upstream's key-shaped code", err)
				}
			}
		})
	}
}
