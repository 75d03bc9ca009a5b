package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"io"
)

// TransportError classifies a failure to get any response from an
// upstream. name is the plugin's, for the message. In order:
//
//   - when ctx has ended, ctx.Err() itself: the caller's cancellation or
//     deadline stays what it is (errors.Is(err, context.Canceled)), and the
//     host, which ended it, knows what it means;
//   - an *Error in err's chain as it is: the host's egress already
//     classified it (denied, over a limit, timed out);
//   - anything else is transient. Its text stays out of the message, which
//     would repeat the URL; log it instead.
func TransportError(ctx context.Context, name string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Transientf("%s: request failed before a response", name)
}

// ReadError classifies a failure while reading a reply's body: ctx.Err()
// when ctx has ended; an *Error in err's chain as it is (the egress's size
// limit or idle timeout); ErrEventTooLarge when err is one of limits, the
// decoder's own size limits (sse.ErrEventTooLarge, for one), which this
// package cannot know; else ErrCutStream.
func ReadError(ctx context.Context, name string, err error, limits ...error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	for _, l := range limits {
		if errors.Is(err, l) {
			return ErrEventTooLarge.Newf("%s: stream event too large", name)
		}
	}
	return ErrCutStream.Newf("%s: reading the reply failed", name)
}

// DecodeError classifies an error from decoding a whole JSON reply with
// encoding/json: a body that ended early was cut (ErrCutStream), one that
// is not the expected document is permanent ("<name>: response body is not
// <what>"), anything else is a ReadError.
func DecodeError(ctx context.Context, name, what string, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return ErrCutStream.Newf("%s: response body ended early", name)
	case errors.As(err, &syntax), errors.As(err, &typ):
		return Permanentf("%s: response body is not %s", name, what)
	}
	return ReadError(ctx, name, err)
}
