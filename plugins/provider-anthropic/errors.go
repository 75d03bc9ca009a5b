package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
)

// wireErrorBody is the "error" object of an error response or of an
// in-stream error event:
// {"type":"error","error":{"type":"overloaded_error","message":"..."}}.
type wireErrorBody struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Details *struct {
		ErrorCode string `json:"error_code"`
	} `json:"details"`
}

type wireErrorEnvelope struct {
	Error *wireErrorBody `json:"error"`
}

// httpError classifies a non-2xx response from its status, its error body
// (when it is the Messages API envelope: a 413 from the edge may be HTML)
// and its retry headers. The vendor's message text is read to classify,
// never returned.
func httpError(status int, h http.Header, body []byte, now time.Time) *sdk.Error {
	var env wireErrorEnvelope
	_ = json.Unmarshal(body, &env) // not the envelope: classify by status alone
	e := classify(status, false, env.Error)
	e.Class = sdk.ShouldRetry(h, e.Class)
	e.RetryAfter = sdk.RetryAfter(h, now)
	return e
}

// streamError classifies an error event inside a 200 stream, or an error
// envelope in a 200 body. It maps like an HTTP error.
func streamError(b *wireErrorBody) *sdk.Error {
	return classify(http.StatusOK, true, b)
}

// classify applies the taxonomy as docs/errors.md#anthropic
// maps it. inBand marks an error sent inside a 200 response.
func classify(status int, inBand bool, b *wireErrorBody) *sdk.Error {
	var typ, msg, code string
	if b != nil {
		typ, msg = sdk.ErrorLabel(b.Type), b.Message // an upstream controls the type, and it goes into the message
		if b.Details != nil {
			code = b.Details.ErrorCode
		}
	}
	e := &sdk.Error{Class: classOf(status, inBand, typ, msg, code), Status: status}
	name := typ
	if name == "" {
		name = "error"
	}
	if inBand {
		e.Message = fmt.Sprintf("anthropic %s (in-band, HTTP %d)", name, status)
	} else {
		e.Message = fmt.Sprintf("anthropic %s (HTTP %d)", name, status)
	}
	return e
}

func classOf(status int, inBand bool, typ, msg, code string) sdk.Class {
	// Conditions that override what the status alone would say. Message
	// text is matched only where the API has no code for the condition.
	switch {
	case code == "enforced_spend_limit_reached", // 429 with no retry-after: resumes next month
		typ == "billing_error",
		status == http.StatusPaymentRequired,
		strings.HasPrefix(msg, "You have reached your specified API usage limits"),
		typ == "1113": // Z.ai's Anthropic endpoint: insufficient balance, as a business code
		return sdk.ClassQuotaExhausted
	case status == http.StatusRequestEntityTooLarge,
		typ == "request_too_large",
		strings.HasPrefix(msg, "prompt is too long"),
		strings.HasPrefix(msg, "input length and `max_tokens` exceed context limit"):
		return sdk.ClassContextOverflow
	}
	switch typ {
	case "authentication_error", "permission_error":
		return sdk.ClassAuthRequired
	case "overloaded_error", "api_error", "rate_limit_error", "timeout_error":
		return sdk.ClassTransient
	case "invalid_request_error", "not_found_error":
		return sdk.ClassPermanent
	}
	if inBand { // an unknown error type after a 200: the server failed, not the request
		return sdk.ClassTransient
	}
	return sdk.StatusClass(status) // 529 overloaded is a 5xx
}
