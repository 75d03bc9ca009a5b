package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
)

// wireErrorBody is Google's error object:
// {"error":{"code":429,"message":"...","status":"RESOURCE_EXHAUSTED","details":[...]}}.
// The message is read only to spot a context overflow, for which the API
// has no code; it never leaves the plugin.
type wireErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Details []struct {
		Type       string `json:"@type"`
		Reason     string `json:"reason"`     // ErrorInfo
		RetryDelay string `json:"retryDelay"` // RetryInfo
		Violations []struct {
			QuotaID    string `json:"quotaId"`
			QuotaValue string `json:"quotaValue"`
		} `json:"violations"` // QuotaFailure
	} `json:"details"`
}

// parseErrorBody reads the error object from b: {"error":{...}}, or the
// same wrapped in a JSON array [{"error":{...}}] (Google sends both). It
// returns nil when b holds neither.
func parseErrorBody(b []byte) *wireErrorBody {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(b, &list) != nil || len(list) == 0 {
			return nil
		}
		b = list[0]
	}
	var env struct {
		Error *wireErrorBody `json:"error"`
	}
	if json.Unmarshal(b, &env) != nil {
		return nil
	}
	return env.Error
}

// httpError classifies a non-2xx response from its status and Google error
// body (an edge proxy may send HTML: then the status alone decides).
func httpError(status int, h http.Header, body []byte, now time.Time) *sdk.Error {
	we := parseErrorBody(body)
	class := classify(status, we)
	e := &sdk.Error{Class: class, Status: status, Message: "gemini: HTTP " + strconv.Itoa(status) + label(we)}
	if class == sdk.ClassTransient {
		e.RetryAfter = retryAfter(h, we, now)
	}
	return e
}

// streamError classifies an error object sent inside a 200 response: an
// SSE chunk or array element holding {"error":{...}}.
func streamError(we *wireErrorBody) *sdk.Error {
	class := classify(0, we)
	msg := "gemini: error inside the response" + label(we)
	if we.Code != 0 {
		msg += fmt.Sprintf(" (code %d)", we.Code)
	}
	e := &sdk.Error{Class: class, Message: msg}
	if class == sdk.ClassTransient {
		e.RetryAfter = retryAfter(nil, we, time.Time{})
	}
	return e
}

// classify applies the taxonomy as docs/errors.md#gemini maps Gemini:
// structured fields first (ErrorInfo.reason, the RPC status, quota ids),
// then the HTTP status (or the body's code, in band), the message only for
// an INVALID_ARGUMENT token-limit overflow.
func classify(status int, we *wireErrorBody) sdk.Class {
	if we == nil {
		we = &wireErrorBody{}
	}
	if status == 0 {
		status = we.Code
	}
	for _, d := range we.Details {
		switch d.Reason {
		case "API_KEY_INVALID", "API_KEY_EXPIRED", "API_KEY_SERVICE_BLOCKED", "CONSUMER_SUSPENDED":
			return sdk.ClassAuthRequired
		case "BILLING_DISABLED":
			return sdk.ClassQuotaExhausted
		}
	}
	switch we.Status {
	case "UNAUTHENTICATED", "PERMISSION_DENIED":
		return sdk.ClassAuthRequired
	case "RESOURCE_EXHAUSTED":
		if quotaCap(we) {
			return sdk.ClassQuotaExhausted
		}
		return sdk.ClassTransient
	case "INVALID_ARGUMENT":
		if tokenOverflow(we.Message) {
			return sdk.ClassContextOverflow
		}
		return sdk.ClassPermanent
	case "NOT_FOUND", "FAILED_PRECONDITION", "OUT_OF_RANGE", "UNIMPLEMENTED", "ALREADY_EXISTS":
		return sdk.ClassPermanent
	case "UNAVAILABLE", "INTERNAL", "DEADLINE_EXCEEDED", "ABORTED", "UNKNOWN", "CANCELLED":
		return sdk.ClassTransient
	}
	switch {
	case status == http.StatusBadRequest && tokenOverflow(we.Message):
		return sdk.ClassContextOverflow
	case status == 0: // in band without a code: the server failed mid-reply
		return sdk.ClassTransient
	}
	return sdk.StatusClass(status)
}

// quotaCap reports a RESOURCE_EXHAUSTED that waiting seconds cannot clear:
// a per-day quota, or a quota of 0 (a model or tier the key may not use,
// e.g. the free tier of a paid-only model).
func quotaCap(we *wireErrorBody) bool {
	for _, d := range we.Details {
		for _, v := range d.Violations {
			if strings.Contains(v.QuotaID, "PerDay") || v.QuotaValue == "0" {
				return true
			}
		}
	}
	return false
}

// tokenOverflow spots the API's context-window wording: "The input token
// count (N) exceeds the maximum number of tokens allowed (M)."
func tokenOverflow(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "input token count") ||
		strings.Contains(m, "exceeds the maximum number of tokens") ||
		strings.Contains(m, "too many input tokens")
}

// retryAfter reads the hint: RetryInfo.retryDelay ("47s", "0.5s") in the
// body, else a Retry-After header (seconds or an HTTP date).
func retryAfter(h http.Header, we *wireErrorBody, now time.Time) time.Duration {
	if we != nil {
		for _, d := range we.Details {
			if v, err := time.ParseDuration(d.RetryDelay); err == nil && v > 0 {
				return min(v, sdk.MaxRetryAfter) // the host applies its own, smaller, cap
			}
		}
	}
	return sdk.RetryAfter(h, now)
}

// label names the error by its RPC status, when sdk.ErrorLabel keeps it;
// the free-text message never leaves the plugin.
func label(we *wireErrorBody) string {
	if we == nil {
		return ""
	}
	if l := sdk.ErrorLabel(we.Status); l != "" {
		return " " + l
	}
	return ""
}
