package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sse"
)

// wireError is what this plugin reads from an error body. The served
// vendors agree only roughly: OpenAI and Groq send
// {"error":{"type","code"(string)}}, OpenRouter an integer error.code,
// Gemini {"error":{"code"(int),"status","details"}} (wrapped in a JSON array
// on its OpenAI endpoint), Mistral the fields at top level, Ollama
// {"error":"text"}. The message is read only to spot a context overflow
// where no code says so; it never leaves the plugin.
type wireError struct {
	message    string
	typ        string
	code       string // a string error.code
	numCode    int    // an integer error.code (OpenRouter, Gemini: the HTTP status)
	rpcStatus  string // Gemini: RESOURCE_EXHAUSTED, PERMISSION_DENIED, ...
	statusCode int    // Groq in-stream errors: the status the error stands for
	retryDelay time.Duration
	reasons    []string // Gemini ErrorInfo.reason
	quotaIDs   []string // Gemini QuotaFailure.violations[].quotaId
	innerCode  string   // Azure innererror.code: ResponsibleAIPolicyViolation
}

// innerError is Azure OpenAI's finer code beside error.code.
type innerError struct {
	Code string `json:"code"`
}

type errorObject struct {
	Message    string          `json:"message"`
	Type       string          `json:"type"`
	Code       json.RawMessage `json:"code"`
	Status     json.RawMessage `json:"status"` // Gemini: an RPC status name; Azure: the HTTP status, a number
	StatusCode int             `json:"status_code"`
	InnerError *innerError     `json:"innererror"`
	InnerErr   *innerError     `json:"inner_error"` // Azure's image API spells it so

	Details []struct {
		Type       string `json:"@type"`
		RetryDelay string `json:"retryDelay"`
		Reason     string `json:"reason"`
		Violations []struct {
			QuotaID string `json:"quotaId"`
		} `json:"violations"`
	} `json:"details"`
}

// parseError reads an error body in any of the shapes above. ok is false
// when b holds none of them.
func parseError(b []byte) (we wireError, ok bool) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(b, &list) != nil || len(list) == 0 {
			return wireError{}, false
		}
		b = bytes.TrimSpace(list[0])
	}
	var top struct {
		Error json.RawMessage `json:"error"`
		errorObject
		Object string `json:"object"`
	}
	if json.Unmarshal(b, &top) != nil {
		return wireError{}, false
	}
	inner := bytes.TrimSpace(top.Error)
	switch {
	case len(inner) > 0 && inner[0] == '"':
		if json.Unmarshal(inner, &we.message) != nil {
			return wireError{}, false
		}
		return we, true
	case len(inner) > 0 && inner[0] == '{':
		var o errorObject
		if json.Unmarshal(inner, &o) != nil {
			return wireError{}, false
		}
		return fromObject(o), true
	case top.Object == "error" || top.Message != "":
		return fromObject(top.errorObject), true
	}
	return wireError{}, false
}

func fromObject(o errorObject) wireError {
	we := wireError{message: o.Message, typ: o.Type, statusCode: o.StatusCode}
	if s := bytes.TrimSpace(o.Status); len(s) > 0 && s[0] == '"' {
		_ = json.Unmarshal(s, &we.rpcStatus) // a number (Azure) repeats the HTTP status: nothing finer
	}
	for _, ie := range []*innerError{o.InnerError, o.InnerErr} {
		if ie != nil && ie.Code != "" {
			we.innerCode = ie.Code
		}
	}
	code := bytes.TrimSpace(o.Code)
	if len(code) > 0 && code[0] == '"' {
		_ = json.Unmarshal(code, &we.code) // a malformed code reads as none
	} else if len(code) > 0 {
		if n, err := strconv.Atoi(string(code)); err == nil {
			we.numCode = n
		}
	}
	for _, d := range o.Details {
		if d.RetryDelay != "" {
			if v, err := time.ParseDuration(d.RetryDelay); err == nil && v > 0 {
				we.retryDelay = v
			}
		}
		if d.Reason != "" {
			we.reasons = append(we.reasons, d.Reason)
		}
		for _, v := range d.Violations {
			we.quotaIDs = append(we.quotaIDs, v.QuotaID)
		}
	}
	return we
}

// httpError classifies a non-2xx response. now is the caller's clock, used
// when the response has no Date header to measure reset times against.
func httpError(status int, h http.Header, body []byte, now time.Time) *sdk.Error {
	we, _ := parseError(body)
	class := classify(status, we, h)
	e := &sdk.Error{Class: class, Status: status, Message: "openai: HTTP " + strconv.Itoa(status) + label(we)}
	if class == sdk.ClassTransient {
		e.RetryAfter = retryAfter(h, we, now)
	}
	return e
}

// streamError classifies an error that arrived inside a 200 response: a
// Groq "event: error", an OpenRouter chunk with a top-level error, or a
// non-streaming body holding only an error.
func streamError(body []byte) *sdk.Error {
	we, _ := parseError(body)
	return inBandError(we)
}

// inBandError classifies an error read from inside a 200 response.
func inBandError(we wireError) *sdk.Error {
	status := we.statusCode
	if status == 0 && we.numCode >= 400 && we.numCode <= 599 {
		status = we.numCode
	}
	class := classify(status, we, nil)
	msg := "openai: error inside the response" + label(we)
	if status != 0 {
		msg += " (status " + strconv.Itoa(status) + ")"
	}
	e := &sdk.Error{Class: class, Message: msg}
	if class == sdk.ClassTransient {
		e.RetryAfter = we.retryDelay
	}
	return e
}

// codeClass is the class a structured code, type, RPC status or reason
// decides whatever the HTTP status, or "" when it decides nothing.
func codeClass(id string) sdk.Class {
	switch id {
	case "insufficient_quota", "credit_balance_exhausted", "organization_usage_limit_exceeded",
		"organization_spend_limit_exceeded", "project_spend_limit_exceeded", "billing_error",
		"insufficient_balance", "billing_hard_limit_reached":
		return sdk.ClassQuotaExhausted
	case "context_length_exceeded", "request_too_large", "string_above_max_length":
		return sdk.ClassContextOverflow
	case "invalid_api_key", "authentication_error", "permission_error", "invalid_authentication",
		"API_KEY_INVALID", "UNAUTHENTICATED", "PERMISSION_DENIED":
		return sdk.ClassAuthRequired
	case "rate_limit_exceeded", "rate_limit_error", "overloaded_error", "server_error", "api_error",
		"server_is_overloaded", "slow_down", "capacity_exceeded", "UNAVAILABLE", "INTERNAL", "DEADLINE_EXCEEDED":
		return sdk.ClassTransient
	case "content_policy_violation", // OpenAI: the safety system rejected the request
		"content_filter",               // Azure OpenAI: a content filter blocked the prompt
		"ResponsibleAIPolicyViolation": // Azure OpenAI's innererror.code for the same
		return sdk.ClassContentFilter
	case "tool_use_failed", // Groq: the model's call does not match its schema, like malformed tool JSON
		"invalid_prompt", // Responses API: the prompt was refused as it stands
		"model_not_found", "not_found_error", "NOT_FOUND":
		return sdk.ClassPermanent
	}
	return ""
}

// codePriority orders the classes codes decide, for a body whose fields
// disagree: a quota or overflow verdict is the most specific. A refusal
// outranks the status too: Azure sends its content filter as a 400.
func codePriority(c sdk.Class) int {
	switch c {
	case sdk.ClassQuotaExhausted:
		return 6
	case sdk.ClassContextOverflow:
		return 5
	case sdk.ClassAuthRequired:
		return 4
	case sdk.ClassContentFilter:
		return 3
	case sdk.ClassTransient:
		return 2
	case sdk.ClassPermanent:
		return 1
	}
	return 0
}

// overflowMessage spots a context overflow in the message of a 400 that
// carries no code for it (OpenRouter, DeepSeek, Gemini, Anthropic-style
// gateways).
func overflowMessage(msg string) bool {
	m := strings.ToLower(msg)
	for _, p := range [...]string{
		"maximum context length", "context length exceeded", "context window",
		"prompt is too long", "input token count", "too many input tokens",
	} {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

// classify maps one error to the taxonomy: structured codes first, then the
// status, then (for a bare 400) the message; x-should-retry last.
func classify(status int, we wireError, h http.Header) sdk.Class {
	class := classifyFields(status, we)
	if status == http.StatusPaymentRequired && class == sdk.ClassQuotaExhausted && h.Get("Retry-After") != "" {
		class = sdk.ClassTransient // OpenRouter: the in-flight budget, which frees up shortly
	}
	return sdk.ShouldRetry(h, class)
}

func classifyFields(status int, we wireError) sdk.Class {
	if we.rpcStatus == "RESOURCE_EXHAUSTED" {
		for _, q := range we.quotaIDs {
			if strings.Contains(q, "PerDay") {
				return sdk.ClassQuotaExhausted // a daily quota does not clear in seconds
			}
		}
		return sdk.ClassTransient
	}
	var decided sdk.Class
	for _, id := range append([]string{we.code, we.typ, we.rpcStatus, we.innerCode}, we.reasons...) {
		if c := codeClass(id); codePriority(c) > codePriority(decided) {
			decided = c
		}
	}
	switch {
	case codePriority(decided) > codePriority(sdk.ClassTransient):
		return decided
	case status == http.StatusRequestEntityTooLarge:
		// Too large for the window or for the rate limit (Groq sends
		// rate_limit_exceeded): the same request can never pass.
		return sdk.ClassContextOverflow
	case decided != "":
		return decided
	}
	switch {
	case status == http.StatusBadRequest && overflowMessage(we.message):
		return sdk.ClassContextOverflow
	case status == 498: // Groq's flex tier over capacity
		return sdk.ClassTransient
	case status < 400: // an in-stream error without a status: the server failed mid-reply
		return sdk.ClassTransient
	}
	return sdk.StatusClass(status)
}

// retryAfter reads the retry hint, preferring the most precise:
// retry-after-ms, retry-after (seconds or an HTTP date), Gemini's
// RetryInfo.retryDelay, then the rate-limit reset headers.
func retryAfter(h http.Header, we wireError, now time.Time) time.Duration {
	if d, ok := parseMillis(h.Get("Retry-After-Ms")); ok {
		return d
	}
	ref := now
	if t, err := http.ParseTime(h.Get("Date")); err == nil {
		ref = t
	}
	if v := h.Get("Retry-After"); v != "" {
		if d, ok := parseSeconds(v); ok {
			return d
		}
		if t, err := http.ParseTime(v); err == nil && t.After(ref) {
			return t.Sub(ref)
		}
	}
	if we.retryDelay > 0 {
		return we.retryDelay
	}
	return rateLimitReset(h, ref)
}

// rateLimitReset reads x-ratelimit-reset-{requests,tokens} (OpenAI, Groq:
// Go-style durations), waiting for the bucket that is empty, or the longer
// one when none says so; then OpenRouter's x-ratelimit-reset (epoch
// milliseconds).
func rateLimitReset(h http.Header, ref time.Time) time.Duration {
	var longest, empty time.Duration
	for _, bucket := range []string{"requests", "tokens"} {
		d, err := time.ParseDuration(h.Get("X-Ratelimit-Reset-" + bucket))
		if err != nil || d <= 0 {
			continue
		}
		longest = max(longest, d)
		if h.Get("X-Ratelimit-Remaining-"+bucket) == "0" {
			empty = max(empty, d)
		}
	}
	if empty > 0 {
		return empty
	}
	if longest > 0 {
		return longest
	}
	if n, err := strconv.ParseInt(h.Get("X-Ratelimit-Reset"), 10, 64); err == nil && n > 1e12 {
		if t := time.UnixMilli(n); t.After(ref) {
			return t.Sub(ref)
		}
	}
	return 0
}

func parseMillis(v string) (time.Duration, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || f > float64(math.MaxInt64/int64(time.Millisecond)) {
		return 0, false
	}
	return time.Duration(f * float64(time.Millisecond)), true
}

func parseSeconds(v string) (time.Duration, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || f > float64(math.MaxInt64/int64(time.Second)) {
		return 0, false
	}
	return time.Duration(f * float64(time.Second)), true
}

// label names the error in a message by its code, status or type, the
// first that sdk.ErrorLabel keeps; a free-text field never leaves the plugin.
func label(we wireError) string {
	for _, s := range []string{we.code, we.rpcStatus, we.typ} {
		if l := sdk.ErrorLabel(s); l != "" {
			return " " + l
		}
	}
	return ""
}

// readError classifies a failure while reading the body.
func readError(ctx context.Context, err error) error {
	return sdk.ReadError(ctx, "openai", err, sse.ErrEventTooLarge)
}
