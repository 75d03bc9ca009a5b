package supervisor

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/sdk"
)

// idleSupervisor runs instances whose idle check the test drives: the
// health loop never ticks, the clock moves only by hand, and a restart
// backoff would last an hour, so a stop counted as a crash would refuse
// the next call instead of starting the plugin again.
func idleSupervisor(t *testing.T, logs *logbuf.Buffer, idle time.Duration) (*Instance, *testClock) {
	t.Helper()
	clk := newTestClock()
	s := newSupervisor(t, logs, Options{HealthInterval: time.Hour, BackoffBase: time.Hour, BackoffMax: time.Hour, clock: clk.Now})
	if err := s.Add(Spec{Name: "echo", Kind: sdk.KindProvider, Path: bin("echo"), IdleStop: idle}); err != nil {
		t.Fatal(err)
	}
	in, _ := s.Instance("echo")
	return in, clk
}

// gone reports whether process pid has exited and been reaped.
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// TestIdleStopStopsAnIdlePluginAndTheNextCallStartsIt: a plugin that
// served no call for its idle_stop is stopped; the next call gets its
// answer from a new process, without an error and without the restart
// backoff a crash would cost.
func TestIdleStopStopsAnIdlePluginAndTheNextCallStartsIt(t *testing.T) {
	t.Parallel()
	logs := &logbuf.Buffer{}
	in, clk := idleSupervisor(t, logs, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, text, err := collect(ctx, in, "first"); err != nil || text != "first" {
		t.Fatalf("first call: %q, %v", text, err)
	}
	first := in.Pid()

	clk.Advance(time.Minute - time.Second)
	in.stopIfIdle()
	if pid := in.Pid(); pid != first {
		t.Fatalf("stopped before its idle_stop: pid %d, was %d", pid, first)
	}
	clk.Advance(time.Second)
	in.stopIfIdle()
	if pid := in.Pid(); pid != 0 {
		t.Fatalf("still running after a minute idle: pid %d", pid)
	}
	if !gone(first) {
		t.Errorf("process %d still exists after its idle stop", first)
	}
	if !strings.Contains(logs.String(), "plugin stopped: idle") {
		t.Errorf("no log line for the stop:\n%s", logs)
	}

	_, text, err := collect(ctx, in, "second")
	if err != nil || text != "second" {
		t.Fatalf("call after the idle stop: %q, %v", text, err)
	}
	if pid := in.Pid(); pid == 0 || pid == first {
		t.Errorf("pid after the idle stop = %d, first was %d", pid, first)
	}
	if strings.Contains(logs.String(), "plugin process lost") {
		t.Errorf("the idle stop was handled as a crash:\n%s", logs)
	}
}

// TestIdleStopNeverTakesAStreamInFlight: a stream that is still running
// when the idle deadline passes keeps its process and ends whole; the idle
// time counts from its end.
func TestIdleStopNeverTakesAStreamInFlight(t *testing.T) {
	t.Parallel()
	in, clk := idleSupervisor(t, &logbuf.Buffer{}, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	inside, resume := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	var text strings.Builder
	go func() {
		first := true
		done <- in.Generate(ctx, ask("one two three"), sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error {
			text.WriteString(ev.Text)
			if ev.Type == sdk.EventTextDelta && first {
				first = false
				close(inside)
				<-resume // the stream stays open while the test moves the clock
			}
			return nil
		}))
	}()
	select {
	case <-inside:
	case err := <-done:
		t.Fatalf("the stream ended before its first text: %v", err)
	}
	pid := in.Pid()
	clk.Advance(time.Hour)
	in.stopIfIdle()
	if got := in.Pid(); got != pid || gone(pid) {
		t.Fatalf("the process under a stream was stopped: pid %d, was %d", got, pid)
	}
	close(resume)
	if err := <-done; err != nil || text.String() != "one two three" {
		t.Fatalf("stream across the idle deadline: %q, %v", text.String(), err)
	}

	clk.Advance(time.Minute - time.Second)
	in.stopIfIdle()
	if got := in.Pid(); got != pid {
		t.Fatalf("stopped %s after the stream ended, idle_stop is a minute", time.Minute-time.Second)
	}
	clk.Advance(time.Second)
	in.stopIfIdle()
	if got := in.Pid(); got != 0 {
		t.Fatalf("still running a minute after the stream ended: pid %d", got)
	}
}

// TestNoIdleStopWithoutTheSetting: an instance without IdleStop runs until
// Close, however long it idles.
func TestNoIdleStopWithoutTheSetting(t *testing.T) {
	t.Parallel()
	in, clk := idleSupervisor(t, &logbuf.Buffer{}, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	pid := in.Pid()
	clk.Advance(1000 * time.Hour)
	in.stopIfIdle()
	if got := in.Pid(); got != pid {
		t.Fatalf("pid %d, was %d: stopped without idle_stop", got, pid)
	}
}

// TestIdleStopsBetweenConcurrentCallsAreInvisible: calls from several
// goroutines, with an idle stop attempted after every one that ends, all
// get their answer; a stop only ever takes a process nobody is using.
func TestIdleStopsBetweenConcurrentCallsAreInvisible(t *testing.T) {
	t.Parallel()
	in, clk := idleSupervisor(t, &logbuf.Buffer{}, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const callers, calls = 4, 6
	ended := make(chan struct{}, callers*calls)
	stopperDone := make(chan struct{})
	go func() {
		defer close(stopperDone)
		for range ended {
			clk.Advance(time.Hour)
			in.stopIfIdle()
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, callers*calls)
	for c := range callers {
		wg.Go(func() {
			for i := range calls {
				want := strings.Repeat("x", c+1) + strings.Repeat("y", i+1)
				_, text, err := collect(ctx, in, want)
				if err == nil && text != want {
					err = errors.New("answer " + text + ", want " + want)
				}
				if err != nil {
					errs <- err
				}
				ended <- struct{}{}
			}
		})
	}
	wg.Wait()
	close(ended)
	<-stopperDone
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestIdleStopHaltsADisplayFirst: a display is put to sleep through its own
// Halt call before its idle stop, so a panel that takes longer to sleep
// than go-plugin waits for a stopping plugin (the test display takes 2.5 s,
// as the epd does with a power pin) still ends asleep and its process
// exits on its own instead of being killed half way.
func TestIdleStopHaltsADisplayFirst(t *testing.T) {
	t.Parallel()
	logs := &logbuf.Buffer{}
	clk := newTestClock()
	s := newSupervisor(t, logs, Options{HealthInterval: time.Hour, BackoffBase: time.Hour, BackoffMax: time.Hour, clock: clk.Now})
	if err := s.Add(Spec{Name: "face", Kind: sdk.KindDisplay, Path: filepath.Join(binDir, "axon-display-slowsleep"), IdleStop: time.Minute}); err != nil {
		t.Fatal(err)
	}
	in, _ := s.Instance("face")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := in.Show(ctx, sdk.Frame{Expression: sdk.ExprIdle}); err != nil {
		t.Fatal(err)
	}
	pid := in.Pid()
	clk.Advance(time.Minute)
	in.stopIfIdle()
	if !gone(pid) {
		t.Fatalf("process %d still exists after its idle stop", pid)
	}
	got := logs.String()
	for _, want := range []string{"plugin stopped: idle", "testdisplay: halted"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in the log:\n%s", want, got)
		}
	}
	for _, bad := range []string{"closing an awake panel", "failed to exit gracefully"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q in the log: the display was stopped before it slept:\n%s", bad, got)
		}
	}
}
