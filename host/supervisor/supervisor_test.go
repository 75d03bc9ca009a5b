package supervisor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/sdk"
)

func TestEchoPluginAnswersEndToEnd(t *testing.T) {
	t.Parallel()
	s := newSupervisor(t, &logbuf.Buffer{}, Options{})
	if err := s.Add(Spec{Name: "echo", Kind: sdk.KindProvider, Path: bin("echo")}); err != nil {
		t.Fatal(err)
	}
	in, _ := s.Instance("echo")
	if in.Pid() != 0 {
		t.Fatal("plugin started before first use")
	}
	events, _, err := collect(context.Background(), in, "the quick brown fox")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range events {
		got = append(got, string(ev.Type)+":"+ev.Text)
	}
	want := []string{"start:", "text_delta:the", "text_delta: quick", "text_delta: brown", "text_delta: fox", "finish:"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestPluginKilledMidStreamGivesTypedErrorThenRestarts(t *testing.T) {
	t.Parallel()
	clk := newTestClock()
	s := newSupervisor(t, &logbuf.Buffer{}, Options{BackoffBase: 10 * time.Millisecond, clock: clk.Now})
	if err := s.Add(Spec{Name: "victim", Kind: sdk.KindProvider, Path: bin("hostile")}); err != nil {
		t.Fatal(err)
	}
	in, _ := s.Instance("victim")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	killed := false
	var firstPid int
	err := in.Generate(ctx, ask("forever"), sdk.SinkFunc(func(context.Context, sdk.Event) error {
		if !killed {
			killed = true
			firstPid = in.Pid()
			if firstPid <= 0 { // never kill(0): that signals the whole process group
				t.Errorf("pid %d during a call", firstPid)
				return nil
			}
			if err := syscall.Kill(firstPid, syscall.SIGKILL); err != nil {
				t.Errorf("kill: %v", err)
			}
		}
		return nil
	}))
	if !errors.Is(err, sdk.ErrPluginExited) {
		t.Fatalf("err = %v, want ErrPluginExited", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the call only ended at the test deadline")
	}
	if _, _, err := collect(ctx, in, "too early"); !errors.Is(err, ErrPluginRestarting) {
		t.Fatalf("call during the restart backoff: %v, want ErrPluginRestarting at once", err)
	}

	clk.Advance(10 * time.Millisecond)
	_, text, err := collect(ctx, in, "alive again")
	if err != nil || text != "alive again" {
		t.Fatalf("call after restart: %q, %v", text, err)
	}
	if pid := in.Pid(); pid == 0 || pid == firstPid {
		t.Errorf("pid after restart = %d, first was %d", pid, firstPid)
	}
}

func TestSHA256Pin(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(bin("echo"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	wrong := sha256.Sum256([]byte("not the binary"))
	s := newSupervisor(t, &logbuf.Buffer{}, Options{})
	s.Add(Spec{Name: "pinned", Kind: sdk.KindProvider, Path: bin("echo"), SHA256: sum[:]})
	s.Add(Spec{Name: "tampered", Kind: sdk.KindProvider, Path: bin("echo"), SHA256: wrong[:]})

	ctx := context.Background()
	good, _ := s.Instance("pinned")
	if _, _, err := collect(ctx, good, "ok"); err != nil {
		t.Errorf("pinned binary refused: %v", err)
	}
	bad, _ := s.Instance("tampered")
	if _, _, err := collect(ctx, bad, "ok"); !errors.Is(err, ErrChecksum) {
		t.Errorf("tampered binary: err = %v, want ErrChecksum (pin %s)", err, hex.EncodeToString(wrong[:4]))
	}
	if bad.Pid() != 0 {
		t.Error("a tampered binary was started")
	}
}

func TestKindMismatchIsRefused(t *testing.T) {
	t.Parallel()
	s := newSupervisor(t, &logbuf.Buffer{}, Options{})
	s.Add(Spec{Name: "wrong", Kind: sdk.KindDisplay, Path: bin("echo")})
	in, _ := s.Instance("wrong")
	err := in.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "serves a provider plugin, configured as a display") {
		t.Fatalf("err = %v", err)
	}
}

func TestCloseKillsEveryProcess(t *testing.T) {
	t.Parallel()
	s := newSupervisor(t, &logbuf.Buffer{}, Options{})
	var pids []int
	for _, name := range []string{"a", "b", "c"} {
		s.Add(Spec{Name: name, Kind: sdk.KindProvider, Path: bin("echo")})
		in, _ := s.Instance(name)
		if err := in.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		pids = append(pids, in.Pid())
	}
	s.Close()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("pid %d still exists after Close (kill 0: %v)", pid, err)
		}
	}
}

func TestHealthCheckReplacesADeadProcess(t *testing.T) {
	t.Parallel()
	logs := &logbuf.Buffer{}
	clk := newTestClock()
	s := newSupervisor(t, logs, Options{HealthInterval: 20 * time.Millisecond, BackoffBase: time.Millisecond, clock: clk.Now})
	s.Add(Spec{Name: "h", Kind: sdk.KindProvider, Path: bin("echo")})
	in, _ := s.Instance("h")
	if err := in.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	pid := in.Pid()
	if pid <= 0 { // never kill(0): that signals the whole process group
		t.Fatalf("pid %d after Start", pid)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	if !logs.WaitFor("plugin process lost", 20*time.Second) {
		t.Fatalf("health loop never noticed the dead plugin; logs:\n%s", logs)
	}
	clk.Advance(time.Millisecond) // the restart's backoff
	if _, text, err := collect(context.Background(), in, "back"); err != nil || text != "back" {
		t.Fatalf("after health restart: %q %v", text, err)
	}
}
