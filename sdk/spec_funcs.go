package sdk

import (
	"time"

	"github.com/axonhq/axon/sdk/spec"
)

// Tokens returns a pointer to n, for filling Usage.
func Tokens(n int64) *int64 { return spec.Tokens(n) }

// TextOf concatenates the Text parts of parts.
func TextOf(parts []Part) string { return spec.TextOf(parts) }

// Errorf builds a classified error.
func Errorf(class Class, format string, args ...any) *Error {
	return spec.Errorf(class, format, args...)
}

// Transientf builds a transient error.
func Transientf(format string, args ...any) *Error { return spec.Transientf(format, args...) }

// Permanentf builds a permanent error.
func Permanentf(format string, args ...any) *Error { return spec.Permanentf(format, args...) }

// ClassOf returns the class of err, or "" when err carries none.
func ClassOf(err error) Class { return spec.ClassOf(err) }

// RetryAfterOf returns the retry hint carried by err, if any.
func RetryAfterOf(err error) time.Duration { return spec.RetryAfterOf(err) }
