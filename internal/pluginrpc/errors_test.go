package pluginrpc

import (
	"context"
	"errors"
	"strings"
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
			got := fromStatus(toStatus(c.in), nil, false)
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
	err := fromStatus(status.Error(codes.Unavailable, "error reading from server: EOF"), nil, false)
	if !errors.Is(err, sdk.ErrPluginExited) || !errors.Is(err, sdk.ErrTransient) {
		t.Errorf("Unavailable without detail: %v", err)
	}
	err = fromStatus(status.Error(codes.Internal, "stream terminated"), func() bool { return true }, false)
	if !errors.Is(err, sdk.ErrPluginExited) {
		t.Errorf("any failure after the process exited: %v", err)
	}
	err = fromStatus(status.Error(codes.Internal, "odd"), func() bool { return false }, false)
	if errors.Is(err, sdk.ErrPluginExited) || sdk.ClassOf(err) != sdk.ClassTransient {
		t.Errorf("a live plugin's internal error: %v", err)
	}
}

// TestExitIsNeverTakenFromThePeer: a status whose detail says
// plugin_exited (a plugin passing on what its own egress call saw, or a
// hostile one) is the peer's word, not a dead process: the host must not
// reap a live plugin for it. On the plugin's side a broken connection to
// the host's egress is egress_unreachable, never plugin_exited.
func TestExitIsNeverTakenFromThePeer(t *testing.T) {
	t.Parallel()
	said := fromStatus(toStatus(&sdk.Error{Class: sdk.ClassTransient, Code: sdk.ErrPluginExited.Code, Message: "plugin connection lost: x"}), func() bool { return false }, true)
	if errors.Is(said, sdk.ErrPluginExited) || sdk.ClassOf(said) != sdk.ClassTransient {
		t.Errorf("a plugin saying plugin_exited: %v (code kept, or class lost)", said)
	}
	eg := egressError(status.Error(codes.Unavailable, "connection error: failed to knock"))
	var se *sdk.Error
	if errors.Is(eg, sdk.ErrPluginExited) || !errors.As(eg, &se) || se.Code != "egress_unreachable" || se.Class != sdk.ClassTransient {
		t.Errorf("the egress connection broken, on the plugin's side: %#v", eg)
	}
	if !strings.Contains(eg.Error(), "failed to knock") {
		t.Errorf("the cause is lost: %v", eg)
	}
}

// TestCallerContextDecidesCancellation: a call whose caller is still
// waiting never ends as a cancellation. Canceled with the caller alive is
// the host closing a dead plugin's connection under the calls still in
// flight: the process is dying, ErrPluginExited. Only a status carrying the
// plugin's pb.Error is the plugin's verdict.
func TestCallerContextDecidesCancellation(t *testing.T) {
	t.Parallel()
	closing := status.Error(codes.Canceled, "grpc: the client connection is closing")
	for _, c := range []struct {
		name      string
		alive     bool // the caller's context was not done
		err       error
		wantClass sdk.Class
		wantCode  string
		wantIs    error // checked with errors.Is when not nil
	}{
		{"connection closing under a live caller", true, closing, sdk.ClassTransient, "plugin_exited", sdk.ErrPluginExited},
		{"plugin's canceled under a live caller", true, toStatus(context.Canceled), sdk.ClassTransient, "plugin_exited", sdk.ErrPluginExited},
		{"caller canceled", false, closing, "", "", context.Canceled},
		{"unavailable", true, status.Error(codes.Unavailable, "error reading from server: read: connection reset by peer"), sdk.ClassTransient, "plugin_exited", sdk.ErrPluginExited},
		{"the plugin's own deadline", true, toStatus(context.DeadlineExceeded), sdk.ClassTransient, "timeout", sdk.ErrTimeout},
		{"the caller's deadline", false, toStatus(context.DeadlineExceeded), "", "", context.DeadlineExceeded},
		{"a verdict is the plugin's", true, toStatus(sdk.Permanentf("bad request")), sdk.ClassPermanent, "", sdk.ErrPermanent},
		{"a live plugin's internal error is not an exit", true, status.Error(codes.Internal, "grpc: error while marshaling"), sdk.ClassTransient, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := fromStatus(c.err, func() bool { return false }, c.alive)
			if c.wantIs != nil && !errors.Is(got, c.wantIs) {
				t.Errorf("got %v, want errors.Is %v", got, c.wantIs)
			}
			var se *sdk.Error
			errors.As(got, &se)
			if c.wantClass == "" {
				if se != nil {
					t.Errorf("got classified %v, want the caller's context error", got)
				}
				return
			}
			if se == nil || se.Class != c.wantClass || se.Code != c.wantCode {
				t.Errorf("got %v, want %s (%s)", got, c.wantClass, c.wantCode)
			}
		})
	}
}
