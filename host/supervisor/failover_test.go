package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/sdk"
)

// TestKillWithCallsInFlight: the plugin is SIGKILLed while many calls wait
// in it, none of them having sent content. Every call ends as
// sdk.ErrPluginExited (transient: the chain retries it on a new process or
// falls back), never as permanent or as a cancellation the caller did not
// ask for.
func TestKillWithCallsInFlight(t *testing.T) {
	t.Parallel()
	const n = 24
	s := newSupervisor(t, &logbuf.Buffer{}, Options{BackoffBase: time.Millisecond})
	if err := s.Add(Spec{Name: "victim", Kind: sdk.KindProvider, Path: bin("hostile")}); err != nil {
		t.Fatal(err)
	}
	in, _ := s.Instance("victim")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}

	var started sync.WaitGroup
	started.Add(n)
	errs := make([]error, n)
	var done sync.WaitGroup
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			first := true
			errs[i] = in.Generate(ctx, ask("hold"), sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error {
				if ev.Type == sdk.EventStart && first {
					first = false
					started.Done()
				}
				return nil
			}))
		}()
	}
	started.Wait() // every call is inside the plugin
	pid := in.Pid()
	if pid <= 0 { // never kill(0): that signals the whole process group
		t.Fatalf("pid %d with calls in flight", pid)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	done.Wait()
	if ctx.Err() != nil {
		t.Fatal("the calls only ended at the test deadline")
	}
	for i, err := range errs {
		if !errors.Is(err, sdk.ErrPluginExited) || sdk.ClassOf(err) != sdk.ClassTransient {
			t.Errorf("call %d: %v (class %q), want plugin_exited", i, err, sdk.ClassOf(err))
		}
	}
}

// TestKillUnderLoad: callers keep the plugin busy while it is SIGKILLed
// again and again, so some calls start on the dying process and some are
// in flight when the host closes its connection. Every failure is
// ErrPluginExited or, while the restart backs off, plugin_restarting: both
// transient, never a cancellation the caller did not ask for.
func TestKillUnderLoad(t *testing.T) {
	t.Parallel()
	const workers, kills, between = 12, 6, 40
	s := newSupervisor(t, &logbuf.Buffer{}, Options{BackoffBase: time.Millisecond})
	if err := s.Add(Spec{Name: "victim", Kind: sdk.KindProvider, Path: bin("hostile")}); err != nil {
		t.Fatal(err)
	}
	in, _ := s.Instance("victim")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	answered := make(chan struct{}, workers)
	stop := make(chan struct{})
	var mu sync.Mutex
	failures := map[string]int{}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				err := in.Generate(ctx, ask("flood 20 10"), sdk.SinkFunc(func(context.Context, sdk.Event) error { return nil }))
				if err == nil {
					select {
					case answered <- struct{}{}:
					default:
					}
					continue
				}
				if !errors.Is(err, sdk.ErrPluginExited) && !errors.Is(err, ErrPluginRestarting) {
					t.Errorf("call failed with %v (class %q), want plugin_exited or plugin_restarting", err, sdk.ClassOf(err))
				}
				var se *sdk.Error
				errors.As(err, &se)
				mu.Lock()
				failures[se.Code]++
				mu.Unlock()
			}
		}()
	}
	for range kills {
		for range between { // the (re)started process has answered
			select {
			case <-answered:
			case <-ctx.Done():
				t.Fatal("no answers from the restarted plugin")
			}
		}
		if pid := in.Pid(); pid > 0 { // never kill(0): that signals the whole process group
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("failed calls by code: %v", failures)
}

// TestCrashLoopIsRefusedAtOnce: a plugin that exits at every start. After
// the failed start, calls are refused at once with ErrPluginRestarting
// while the backoff runs (an hour here: a call that waited for it would
// hang the test), and nothing else on the instance waits either.
func TestCrashLoopIsRefusedAtOnce(t *testing.T) {
	t.Parallel()
	s := newSupervisor(t, &logbuf.Buffer{}, Options{BackoffBase: time.Hour})
	if err := s.Add(Spec{Name: "looper", Kind: sdk.KindProvider, Path: bin("crasher")}); err != nil {
		t.Fatal(err)
	}
	in, _ := s.Instance("looper")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, _, err := collect(ctx, in, "hi"); err == nil || errors.Is(err, ErrPluginRestarting) {
		t.Fatalf("first call: %v, want the failed start", err)
	}
	const n = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[i] = collect(ctx, in, "hi")
		}()
	}
	if pid := in.Pid(); pid != 0 {
		t.Errorf("pid %d of a plugin that never started", pid)
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatal("calls waited for the backoff")
	}
	for i, err := range errs {
		if !errors.Is(err, ErrPluginRestarting) || sdk.ClassOf(err) != sdk.ClassTransient || sdk.RetryAfterOf(err) >= 0 {
			t.Errorf("call %d: %v (hint %v), want plugin_restarting with a negative hint", i, err, sdk.RetryAfterOf(err))
		}
	}
	if err := in.Start(ctx); !errors.Is(err, ErrPluginRestarting) {
		t.Errorf("Start in backoff: %v", err)
	}
}

// TestAStartDoesNotHoldTheInstance: a start that hangs (here in Configure)
// holds no lock: the instance answers Pid and Stop, each waiting call ends
// with its own context, and Close cancels the start.
func TestAStartDoesNotHoldTheInstance(t *testing.T) {
	t.Parallel()
	logs := &logbuf.Buffer{}
	s := New(hclog.New(&hclog.LoggerOptions{Name: "axon", Output: logs, Level: hclog.Trace}), Options{})
	defer s.Close()
	err := s.Add(Spec{Name: "slow", Kind: sdk.KindProvider, Path: bin("hostile"),
		Values: func(sdk.Info) (json.RawMessage, error) { return json.RawMessage(`{"hold_configure":true}`), nil }})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := s.Instance("slow")
	first, cancelFirst := context.WithCancel(context.Background())
	firstErr := make(chan error, 1)
	go func() { firstErr <- in.Start(first) }()
	if !logs.WaitFor("holding configure", 30*time.Second) {
		t.Fatalf("the plugin never reached Configure; logs:\n%s", logs)
	}
	if pid := in.Pid(); pid != 0 {
		t.Errorf("pid %d before the start ended", pid)
	}
	in.Stop()
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if err := in.Start(gone); !errors.Is(err, context.Canceled) {
		t.Errorf("a second caller, canceled: %v", err)
	}
	cancelFirst()
	if err := <-firstErr; !errors.Is(err, context.Canceled) {
		t.Errorf("the first caller, canceled: %v", err)
	}
	s.Close() // cancels the start and waits for it
	if err := in.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "supervisor closed") {
		t.Errorf("after Close: %v", err)
	}
}

// TestBackoffResetsAfterAStablePeriod: crashes closer together than
// StableAfter double the restart delay; a process that ran StableAfter
// brings it back to BackoffBase.
func TestBackoffResetsAfterAStablePeriod(t *testing.T) {
	t.Parallel()
	const base = 100 * time.Millisecond
	clk := newTestClock()
	s := newSupervisor(t, &logbuf.Buffer{}, Options{BackoffBase: base, BackoffMax: time.Hour, clock: clk.Now})
	if err := s.Add(Spec{Name: "victim", Kind: sdk.KindProvider, Path: bin("hostile")}); err != nil {
		t.Fatal(err)
	}
	in, _ := s.Instance("victim")
	var got []time.Duration
	for _, ran := range []time.Duration{0, time.Second, 0, DefaultStableAfter, 0} {
		if err := in.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		clk.Advance(ran) // the process's life
		killInFlight(t, in)
		in.mu.Lock()
		wait := in.notUntil.Sub(clk.Now())
		in.mu.Unlock()
		got = append(got, wait)
		clk.Advance(wait)
	}
	want := []time.Duration{base, 2 * base, 4 * base, base, 2 * base}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("restart delays (-want +got):\n%s", diff)
	}
}

// killInFlight starts in's process if need be, SIGKILLs it during a call
// and checks the call saw ErrPluginExited.
func killInFlight(t *testing.T, in *Instance) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := in.Generate(ctx, ask("hold"), sdk.SinkFunc(func(_ context.Context, ev sdk.Event) error {
		if ev.Type != sdk.EventStart {
			return nil
		}
		if pid := in.Pid(); pid > 0 { // never kill(0): that signals the whole process group
			syscall.Kill(pid, syscall.SIGKILL)
		}
		return nil
	}))
	if !errors.Is(err, sdk.ErrPluginExited) {
		t.Fatalf("call on the killed plugin: %v, want ErrPluginExited", err)
	}
}
