package sdk

import (
	"errors"
	"fmt"
	"time"
)

// Class is the one error taxonomy every chain decision is made on
// (docs/errors.md#classes). A plugin maps each wire error to exactly one class.
type Class string

const (
	ClassTransient       Class = "transient"        // retry on the same provider, then fall back
	ClassPermanent       Class = "permanent"        // no retry, fall back
	ClassAuthRequired    Class = "auth_required"    // no retry, fall back, surface in health
	ClassContextOverflow Class = "context_overflow" // skip to a provider with a larger window
	ClassQuotaExhausted  Class = "quota_exhausted"  // no retry, fall back, surface in health
	ClassContentFilter   Class = "content_filter"   // fall back only if the chain allows
)

// Error is a classified failure. It crosses the plugin boundary intact: the
// host sees the same Class, Code, Status and RetryAfter the plugin returned.
// Message must be short and safe: no credential, no raw vendor body.
type Error struct {
	Class      Class
	Code       string        // optional finer condition, e.g. "plugin_exited", "egress_denied"
	Message    string        // short, safe, human readable
	Status     int           // upstream HTTP status when there was one
	RetryAfter time.Duration // the provider's retry hint; 0 when none
}

// Error returns the class, then the code and message when set.
func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = string(e.Class)
	}
	if e.Code != "" && e.Message != "" {
		return fmt.Sprintf("%s (%s): %s", e.Class, e.Code, msg)
	}
	if e.Message == "" {
		return msg
	}
	return fmt.Sprintf("%s: %s", e.Class, msg)
}

// Is matches a sentinel: one with a Code matches that code, one without
// matches the class. So errors.Is(err, sdk.ErrTransient) holds for every
// transient error, and errors.Is(err, sdk.ErrPluginExited) only for that one.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok || t.Message != "" {
		return false
	}
	if t.Code != "" {
		return e.Code == t.Code
	}
	return e.Class == t.Class
}

// Sentinels for errors.Is.
var (
	ErrTransient       = &Error{Class: ClassTransient}
	ErrPermanent       = &Error{Class: ClassPermanent}
	ErrAuthRequired    = &Error{Class: ClassAuthRequired}
	ErrContextOverflow = &Error{Class: ClassContextOverflow}
	ErrQuotaExhausted  = &Error{Class: ClassQuotaExhausted}
	ErrContentFilter   = &Error{Class: ClassContentFilter}

	// ErrPluginExited: the plugin process died during a call.
	ErrPluginExited = &Error{Class: ClassTransient, Code: "plugin_exited"}
	// ErrEgressDenied: the host refused an egress request (host not allowed).
	ErrEgressDenied = &Error{Class: ClassPermanent, Code: "egress_denied"}
	// ErrEgressLimit: a request or response exceeded an egress size limit
	// (permanent), or the plugin already has max_concurrent requests in
	// flight (sent as transient).
	ErrEgressLimit = &Error{Class: ClassPermanent, Code: "egress_limit"}
	// ErrTimeout: a deadline fired (connect, headers, first token, idle).
	ErrTimeout = &Error{Class: ClassTransient, Code: "timeout"}
)

// Errorf builds a classified error.
func Errorf(class Class, format string, args ...any) *Error {
	return &Error{Class: class, Message: fmt.Sprintf(format, args...)}
}

// Transientf builds an error of class transient: retry once, then fall back.
func Transientf(format string, args ...any) *Error { return Errorf(ClassTransient, format, args...) }

// Permanentf builds an error of class permanent: this request will not work
// here, fall back at once.
func Permanentf(format string, args ...any) *Error { return Errorf(ClassPermanent, format, args...) }

// CodeUnsupported marks a request a plugin refuses before sending anything
// because its API has no place for something the request asks for.
const CodeUnsupported = "unsupported"

// Unsupportedf refuses a request the plugin cannot render for its API (a
// document its API takes no form of, more stop sequences than it allows),
// before anything is sent: permanent, so the chain falls back, with Status
// 400 and Code CodeUnsupported, so that a client whose request no provider
// of the chain can honour is answered as a bad request naming why, not as
// an upstream failure.
func Unsupportedf(format string, args ...any) *Error {
	return &Error{Class: ClassPermanent, Code: CodeUnsupported, Status: 400, Message: fmt.Sprintf(format, args...)}
}

// ClassOf returns the class of err, or "" when err carries none.
func ClassOf(err error) Class {
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	return ""
}

// RetryAfterOf returns the retry hint carried by err, if any.
func RetryAfterOf(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}
