package sdk

import "fmt"

// The error codes provider plugins share, as sentinels for errors.Is. Each
// names a condition the host and its trails can count across providers;
// build an error of one with Newf. ErrTimeout, ErrEgressDenied and
// ErrEgressLimit (errors.go) come from the host's egress and pass through
// a plugin unchanged.
var (
	// ErrNoText: the reply ended with neither text nor a tool call.
	ErrNoText = &Error{Class: ClassPermanent, Code: "no_text"}
	// ErrCutStream: the reply's body ended, or broke, before the reply was
	// complete.
	ErrCutStream = &Error{Class: ClassTransient, Code: "cut_stream"}
	// ErrEventTooLarge: one stream event or line was beyond the plugin's
	// limit; the same request would meet it again.
	ErrEventTooLarge = &Error{Class: ClassPermanent, Code: "event_too_large"}
	// ErrMalformedToolCall: the model produced a tool call the plugin
	// cannot pass on (no name, input that is not a JSON object).
	ErrMalformedToolCall = &Error{Class: ClassPermanent, Code: "malformed_tool_call"}
)

// Newf returns an error of e's class and code with a message, for e one of
// the sentinels: sdk.ErrCutStream.Newf("%s: stream ended early", name).
// errors.Is(err, e) holds for the result.
func (e *Error) Newf(format string, args ...any) *Error {
	return &Error{Class: e.Class, Code: e.Code, Message: fmt.Sprintf(format, args...)}
}
