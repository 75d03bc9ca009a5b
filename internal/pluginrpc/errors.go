package pluginrpc

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

// toStatus turns an error returned by a plugin implementation (or by the
// host's egress) into a gRPC status that carries the sdk error intact.
// An unclassified error is sent as transient: the chain retries it once and
// then falls back, which is the safe reading of "something broke".
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return status.Error(codes.Canceled, "canceled")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return status.Error(codes.DeadlineExceeded, "deadline exceeded")
	}
	var se *sdk.Error
	if !errors.As(err, &se) {
		se = &sdk.Error{Class: sdk.ClassTransient, Message: err.Error()}
	}
	st := status.New(codeFor(se.Class), se.Error())
	withDetail, derr := st.WithDetails(&pb.Error{
		Class: string(se.Class), Code: se.Code, Message: se.Message,
		Status: int32(se.Status), RetryAfterMs: se.RetryAfter.Milliseconds(),
	})
	if derr != nil {
		return st.Err()
	}
	return withDetail.Err()
}

func codeFor(c sdk.Class) codes.Code {
	switch c {
	case sdk.ClassTransient:
		return codes.Unavailable
	case sdk.ClassAuthRequired:
		return codes.Unauthenticated
	case sdk.ClassQuotaExhausted:
		return codes.ResourceExhausted
	case sdk.ClassContextOverflow:
		return codes.OutOfRange
	case sdk.ClassContentFilter:
		return codes.PermissionDenied
	}
	return codes.FailedPrecondition
}

// fromStatus is the inverse of toStatus, on the calling side. callerAlive
// reports that the caller's context was not done when the call failed
// (false when it is not known). Only a status
// that carries the plugin's own pb.Error is the plugin's verdict. Without
// one, while the caller's context is alive, a broken or closing connection
// (Unavailable, Canceled) or a process known to be gone (exited) is
// sdk.ErrPluginExited: the process is dying, which says nothing about the
// request, so the chain retries it on a new process or falls back. Canceled
// is what every call still in flight gets when the host closes a dead
// plugin's connection (grpc: "the client connection is closing"); it is the
// caller's own cancellation only when its context is done.
func fromStatus(err error, exited func() bool, callerAlive bool) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	for _, d := range st.Details() {
		if e, ok := d.(*pb.Error); ok {
			code := e.GetCode()
			if code == sdk.ErrPluginExited.Code {
				// Only this side can tell that the process on the other
				// side died: a peer that says so is not taken at its word
				// (a plugin would get a live process of its own reaped).
				code = ""
			}
			return &sdk.Error{
				Class: sdk.Class(e.GetClass()), Code: code, Message: e.GetMessage(),
				Status: int(e.GetStatus()), RetryAfter: time.Duration(e.GetRetryAfterMs()) * time.Millisecond,
			}
		}
	}
	switch {
	case exited != nil && exited():
		return &sdk.Error{Class: sdk.ClassTransient, Code: sdk.ErrPluginExited.Code, Message: "plugin exited during the call"}
	case st.Code() == codes.Unavailable:
		// A transport failure with no sdk detail: the connection to the plugin broke.
		return &sdk.Error{Class: sdk.ClassTransient, Code: sdk.ErrPluginExited.Code, Message: "plugin connection lost: " + st.Message()}
	case st.Code() == codes.Canceled && callerAlive:
		return &sdk.Error{Class: sdk.ClassTransient, Code: sdk.ErrPluginExited.Code, Message: "plugin connection closed: " + st.Message()}
	case st.Code() == codes.Canceled:
		return context.Canceled
	case st.Code() == codes.DeadlineExceeded && callerAlive:
		// The caller's deadline has not passed: a deadline of the plugin's own.
		return &sdk.Error{Class: sdk.ClassTransient, Code: sdk.ErrTimeout.Code, Message: "plugin rpc: " + st.Message()}
	case st.Code() == codes.DeadlineExceeded:
		return context.DeadlineExceeded
	case st.Code() == codes.Unimplemented:
		return &sdk.Error{Class: sdk.ClassPermanent, Code: "unimplemented", Message: st.Message()}
	}
	return &sdk.Error{Class: sdk.ClassTransient, Message: "plugin rpc: " + st.Message()}
}
