package sdk

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestErrorIs(t *testing.T) {
	t.Parallel()
	exited := &Error{Class: ClassTransient, Code: "plugin_exited", Message: "plugin exited during the call"}
	quota := fmt.Errorf("chain: %w", &Error{Class: ClassQuotaExhausted, Message: "insufficient_quota", RetryAfter: time.Second})
	for _, c := range []struct {
		err    error
		target error
		want   bool
	}{
		{exited, ErrPluginExited, true},
		{exited, ErrTransient, true},
		{exited, ErrEgressDenied, false},
		{exited, ErrPermanent, false},
		{quota, ErrQuotaExhausted, true},
		{quota, ErrTransient, false},
		{Transientf("x"), ErrPluginExited, false},
		{errors.New("plain"), ErrTransient, false},
	} {
		if got := errors.Is(c.err, c.target); got != c.want {
			t.Errorf("errors.Is(%v, %v) = %v, want %v", c.err, c.target, got, c.want)
		}
	}
	if ClassOf(quota) != ClassQuotaExhausted || RetryAfterOf(quota) != time.Second || ClassOf(errors.New("x")) != "" {
		t.Error("ClassOf / RetryAfterOf do not see through wrapping")
	}
}

func TestUnsupportedf(t *testing.T) {
	e := Unsupportedf("%d stop sequences", 6)
	if e.Class != ClassPermanent || e.Status != 400 || e.Code != CodeUnsupported || e.Message != "6 stop sequences" || ClassOf(e) != ClassPermanent {
		t.Errorf("Unsupportedf: %+v", e)
	}
}
