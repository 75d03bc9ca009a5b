package sdk

import (
	"net/http"
	"strings"
)

// StatusClass is the class an HTTP status alone implies (docs/errors.md#decision-order),
// for a reply whose body says nothing finer: 401 and 403 need a
// credential, 402 is an exhausted quota, 413 a request too large for the
// model, 408, 409, 429 and every 5xx are worth a retry, and anything else
// (other 4xx, a redirect, which means a wrong base URL) is permanent.
// A provider checks its own codes and wording first.
func StatusClass(status int) Class {
	switch {
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return ClassAuthRequired
	case status == http.StatusPaymentRequired:
		return ClassQuotaExhausted
	case status == http.StatusRequestEntityTooLarge:
		return ClassContextOverflow
	case status == http.StatusRequestTimeout, status == http.StatusConflict,
		status == http.StatusTooManyRequests, status >= 500:
		return ClassTransient
	}
	return ClassPermanent
}

// ShouldRetry applies an upstream's x-should-retry header (sent by the
// Anthropic and OpenAI APIs) to class: "true" makes a permanent failure
// transient, "false" makes a transient one permanent, since the upstream
// knows a retry cannot help and falling back is better. Other classes, and
// a missing header, are left as they are.
func ShouldRetry(h http.Header, class Class) Class {
	switch strings.ToLower(strings.TrimSpace(h.Get("X-Should-Retry"))) {
	case "true":
		if class == ClassPermanent {
			return ClassTransient
		}
	case "false":
		if class == ClassTransient {
			return ClassPermanent
		}
	}
	return class
}
