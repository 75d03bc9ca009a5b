package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/sse"
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

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// httpError classifies a non-2xx response from its status, its error body
// (when it is the Messages API envelope: a 413 from the edge may be HTML)
// and its retry headers. The vendor's message text is read to classify,
// never returned.
func httpError(status int, h http.Header, body []byte, now time.Time) *sdk.Error {
	var env wireErrorEnvelope
	_ = json.Unmarshal(body, &env) // not the envelope: classify by status alone
	e := classify(status, false, env.Error)
	switch strings.ToLower(strings.TrimSpace(h.Get("X-Should-Retry"))) {
	case "true":
		if e.Class == sdk.ClassPermanent {
			e.Class = sdk.ClassTransient
		}
	case "false":
		if e.Class == sdk.ClassTransient {
			e.Class = sdk.ClassPermanent // the upstream says a retry cannot help; fall back instead
		}
	}
	e.RetryAfter = retryAfter(h, now)
	return e
}

// streamError classifies an error event inside a 200 stream, or an error
// envelope in a 200 body. It maps like an HTTP error.
func streamError(b *wireErrorBody) *sdk.Error {
	return classify(http.StatusOK, true, b)
}

// classify applies the taxonomy of DESIGN.md §5 and
// notes/error-taxonomy.md. inBand marks an error sent inside a 200 response.
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
	switch {
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return sdk.ClassAuthRequired
	case inBand, // an unknown error type after a 200: the server failed, not the request
		status == http.StatusRequestTimeout,
		status == http.StatusConflict,
		status == http.StatusTooManyRequests,
		status >= 500: // 529 overloaded included
		return sdk.ClassTransient
	}
	return sdk.ClassPermanent
}

// maxRetryAfter bounds a hint before it becomes a Duration (a float beyond
// int64 nanoseconds has no defined conversion). The host applies its own,
// much smaller, cap.
const maxRetryAfter = sdk.MaxRetryAfter

// retryAfter reads the retry hint: retry-after-ms (milliseconds) first, then
// retry-after (seconds, or an HTTP date). No hint, or a hint in the past, is 0.
func retryAfter(h http.Header, now time.Time) time.Duration { return sdk.RetryAfter(h, now) }

// readFailure classifies an error from reading the response body.
func readFailure(ctx context.Context, err error) error {
	if errors.Is(err, sse.ErrEventTooLarge) {
		return &sdk.Error{Class: sdk.ClassPermanent, Code: "event_too_large", Message: "anthropic: stream event too large"}
	}
	return transportFailure(ctx, err, "anthropic: response stream broke")
}

// transportFailure classifies a failure below HTTP: the caller's
// cancellation stays itself, a failure the egress classified (denied,
// timeout, size limit) passes through, anything else is transient with msg.
func transportFailure(ctx context.Context, err error, msg string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var e *sdk.Error
	if errors.As(err, &e) {
		return e
	}
	return sdk.Transientf("%s", msg)
}
