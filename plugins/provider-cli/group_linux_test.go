package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/axonhq/axon/sdk"
)

// becomeSubreaper makes this test process the reaper of its orphaned
// descendants, so a test can wait for a grandchild the plugin's client
// left: Linux reparents it here when the client dies.
var becomeSubreaper = sync.OnceValue(func() error {
	const prSetChildSubreaper = 36
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return errno
	}
	return nil
})

// TestStopKillsTheGroup: when the caller cancels, or the sink refuses an
// event, mid-stream, the client and the process it started are killed
// (the whole group), the client is reaped, and Generate returns the
// caller's error.
func TestStopKillsTheGroup(t *testing.T) {
	if err := becomeSubreaper(); err != nil {
		t.Skipf("cannot become a child subreaper: %v", err)
	}
	sinkErr := errors.New("client went away")
	for _, c := range []struct {
		name string
		stop func(cancel context.CancelFunc) error // what the sink does at the first delta
		want error
	}{
		{"cancel", func(cancel context.CancelFunc) error { cancel(); return nil }, context.Canceled},
		{"sink error", func(context.CancelFunc) error { return sinkErr }, sinkErr},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newCLI(t, fakeHome(t, true), values(t, parseJSONL, nil), "")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			grandchild, calls := 0, 0
			err := p.Generate(ctx, userRequest("spawn"), sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error {
				calls++
				if ev.Type != sdk.EventTextDelta {
					return nil
				}
				if _, err := fmt.Sscanf(strings.TrimPrefix(ev.Text, "spawned "), "%d", &grandchild); err != nil {
					t.Errorf("delta %q: want spawned PID", ev.Text)
				}
				return c.stop(cancel)
			}))
			if !errors.Is(err, c.want) {
				t.Fatalf("Generate: %v, want %v", err, c.want)
			}
			if c.want == sinkErr && calls != 2 {
				t.Errorf("the sink was called %d times, want 2 (start, then the delta it refused)", calls)
			}
			if grandchild == 0 {
				t.Fatal("no grandchild pid")
			}
			// Blocks until the grandchild dies: a group kill that missed it
			// fails this test by the binary's timeout.
			var ws syscall.WaitStatus
			if _, err := syscall.Wait4(grandchild, &ws, 0, nil); err != nil {
				t.Fatalf("wait for grandchild %s: %v", strconv.Itoa(grandchild), err)
			}
			if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Errorf("grandchild ended with %v, want killed by SIGKILL", ws)
			}
		})
	}
}
