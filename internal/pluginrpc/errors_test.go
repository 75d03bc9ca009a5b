package pluginrpc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/axonhq/axon/sdk"
)

func TestErrorsSurviveTheBoundary(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		in   error
		want error // compared with cmp for *sdk.Error, errors.Is otherwise
	}{
		{"classified", &sdk.Error{Class: sdk.ClassTransient, Code: "overloaded", Message: "anthropic: HTTP 529 overloaded_error", Status: 529, RetryAfter: 1500 * time.Millisecond},
			&sdk.Error{Class: sdk.ClassTransient, Code: "overloaded", Message: "anthropic: HTTP 529 overloaded_error", Status: 529, RetryAfter: 1500 * time.Millisecond}},
		{"wrapped", errors.Join(errors.New("context"), sdk.Errorf(sdk.ClassQuotaExhausted, "insufficient_quota")),
			&sdk.Error{Class: sdk.ClassQuotaExhausted, Message: "insufficient_quota"}},
		{"unclassified is transient", errors.New("boom"), &sdk.Error{Class: sdk.ClassTransient, Message: "boom"}},
		{"canceled", context.Canceled, context.Canceled},
		{"deadline", context.DeadlineExceeded, context.DeadlineExceeded},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := fromStatus(toStatus(c.in), nil)
			var want *sdk.Error
			if errors.As(c.want, &want) {
				var se *sdk.Error
				if !errors.As(got, &se) {
					t.Fatalf("got %T %v", got, got)
				}
				if diff := cmp.Diff(want, se); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				return
			}
			if !errors.Is(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestTransportFailureIsPluginExited(t *testing.T) {
	t.Parallel()
	err := fromStatus(status.Error(codes.Unavailable, "error reading from server: EOF"), nil)
	if !errors.Is(err, sdk.ErrPluginExited) || !errors.Is(err, sdk.ErrTransient) {
		t.Errorf("Unavailable without detail: %v", err)
	}
	err = fromStatus(status.Error(codes.Internal, "stream terminated"), func() bool { return true })
	if !errors.Is(err, sdk.ErrPluginExited) {
		t.Errorf("any failure after the process exited: %v", err)
	}
	err = fromStatus(status.Error(codes.Internal, "odd"), func() bool { return false })
	if errors.Is(err, sdk.ErrPluginExited) || sdk.ClassOf(err) != sdk.ClassTransient {
		t.Errorf("a live plugin's internal error: %v", err)
	}
}
