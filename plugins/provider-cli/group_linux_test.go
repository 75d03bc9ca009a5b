package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/axonhq/axon/sdk"
	"github.com/axonhq/axon/sdk/child"
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
		t.Fatalf("cannot become a child subreaper (Linux has had it since 3.4): %v", err)
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
			p.kids.SweepOrphans = true // as the plugin's init would: the test is not parallel
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
			// fails this test by the binary's timeout. ECHILD: the plugin's
			// sweep has reaped it already, so it is dead too.
			var ws syscall.WaitStatus
			_, err = syscall.Wait4(grandchild, &ws, 0, nil)
			if errors.Is(err, syscall.ECHILD) {
				return
			}
			if err != nil {
				t.Fatalf("wait for grandchild %s: %v", strconv.Itoa(grandchild), err)
			}
			if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Errorf("grandchild ended with %v, want killed by SIGKILL", ws)
			}
		})
	}
}

// TestSweepReapsOrphansNotClients: the sweep reaps an exited child that is
// not a client (an orphan come to the plugin) and leaves an exited client
// for os/exec to wait for. Not parallel: it reaps this process's children.
func TestSweepReapsOrphansNotClients(t *testing.T) {
	kids := &child.Reaper{SweepOrphans: true}
	loggedOut := []string{"HOME=" + t.TempDir()} // the fake exits 1 at once
	orphan := exec.Command(fakeCLI, "hello")
	orphan.Env = loggedOut
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	client := exec.Command(fakeCLI, "hello")
	client.Env = loggedOut
	if err := kids.Start(client); err != nil {
		t.Fatal(err)
	}
	if !child.WaitExited(orphan.Process.Pid) || !child.WaitExited(client.Process.Pid) {
		t.Fatal("waitid failed")
	}
	kids.Sweep()
	var ee *exec.ExitError
	if err := client.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("client: %v, want its own exit status 1", err)
	}
	kids.Done(client.Process.Pid)
	if err := orphan.Wait(); err == nil || !errors.Is(err, syscall.ECHILD) {
		t.Errorf("orphan: Wait = %v, want ECHILD (the sweep reaped it)", err)
	}
}
