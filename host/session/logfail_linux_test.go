//go:build linux

package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/internal/smalldisk"
	"github.com/axonhq/axon/sdk"
)

// logLines collects what the manager logs, as JSON lines, and hands each
// to the test as it comes.
type logLines struct {
	mu    sync.Mutex
	buf   []byte
	lines []map[string]any
	ch    chan map[string]any
}

func newLogLines() *logLines { return &logLines{ch: make(chan map[string]any, 1024)} }

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		var m map[string]any
		if json.Unmarshal(l.buf[:i], &m) == nil {
			l.lines = append(l.lines, m)
			select {
			case l.ch <- m:
			default:
			}
		}
		l.buf = l.buf[i+1:]
	}
}

func (l *logLines) logger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Output: l, Level: hclog.Debug, JSONFormat: true})
}

// await returns once a line whose message contains msg has been logged. A
// minute without it fails the test, rather than hanging it.
func (l *logLines) await(t *testing.T, msg string) {
	t.Helper()
	guard := time.NewTimer(time.Minute)
	defer guard.Stop()
	for {
		select {
		case m := <-l.ch:
			if s, _ := m["@message"].(string); strings.Contains(s, msg) {
				return
			}
		case <-guard.C:
			t.Fatalf("nothing logged %q", msg)
		}
	}
}

// at lists the messages logged at level.
func (l *logLines) at(level string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, m := range l.lines {
		if m["@level"] == level {
			out = append(out, fmt.Sprint(m["@message"]))
		}
	}
	return out
}

// diskRig is a rig whose state directory is on a small tmpfs.
func diskRig(t *testing.T, size string, script func(int, *sdk.Request) (answer, error), tools map[string]Tool, mod ...func(*Options)) (*rig, string) {
	t.Helper()
	disk := smalldisk.Mount(t, size)
	r := &rig{t: t, dir: filepath.Join(disk, "sessions"), model: &model{script: script}, tools: tools}
	r.m = r.start(mod...)
	return r, disk
}

// lastPrompt is the text of the request's last user message.
func lastPrompt(req *sdk.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m.Role == sdk.RoleUser && len(m.Parts) > 0 {
			if t, ok := m.Parts[0].(sdk.Text); ok {
				return t.Text
			}
		}
	}
	return ""
}

// followUntilFailure subscribes to run adm, calls ready once the
// subscription is in place, and returns the events it saw and the error
// Follow ended with.
func followUntilFailure(t *testing.T, m *Manager, adm Admitted, ready func()) ([]Event, error) {
	t.Helper()
	var evs []Event
	err := m.Follow(context.Background(), adm.SessionID, adm.After, FollowOptions{Run: adm.RunID, Ready: ready}, func(it Item) error {
		evs = append(evs, *it.Event)
		return nil
	})
	return evs, err
}

func ofType(evs []Event, typ string) []Event {
	var out []Event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// healthOf is the one failure Health reports.
func healthOf(t *testing.T, m *Manager) LogFailure {
	t.Helper()
	var he *HealthError
	if err := m.Health(); !errors.As(err, &he) || !errors.Is(err, ErrLogFailed) || len(he.Failures) != 1 {
		t.Fatalf("Health = %v, want one failing session log", err)
	}
	return he.Failures[0]
}

// The batch of a step's tool intents cannot be written: the disk is full.
// No tool is called, the run ends interrupted with the error once the disk
// has room, and the session takes the next prompt.
func TestIntentsOnAFullDiskAreNeverDispatched(t *testing.T) {
	t.Parallel()
	// Forty short calls: the model step's record fits in one block, the
	// batch of their intents needs more than two.
	var calls []sdk.ToolCall
	for i := range 40 {
		calls = append(calls, call(fmt.Sprintf("c%02d", i), "append_note", `{}`))
	}
	hold, entered := make(chan struct{}), make(chan struct{})
	script := func(step int, req *sdk.Request) (answer, error) {
		if lastPrompt(req) == "again" || step > 0 {
			return answer{text: "done", usage: usage(1, 1)}, nil
		}
		return answer{text: "writing ", calls: calls, usage: usage(1, 1), hold: hold, entered: entered}, nil
	}
	notes := newTool(sdk.SideEffectUnsafe, "append_note")
	logs := newLogLines()
	r, disk := diskRig(t, "256k", script, map[string]Tool{"notes": notes}, func(o *Options) {
		o.Logger, o.SealRetry = logs.logger(), time.Hour // only requests seal
	})

	srv := httptest.NewServer(r.m.Handler())
	t.Cleanup(srv.Close)

	adm := r.send(Params{Prompt: "take notes", Tools: []string{"notes"}})
	<-entered
	smalldisk.Fill(t, disk, "filler", 1)
	// An event stream is open on the run when its log fails: it ends,
	// saying why, instead of waiting for ever.
	resp, err := http.Get(srv.URL + "/v1/sessions/" + adm.SessionID + "/events?display=false&run=" + adm.RunID + "&after=" + adm.After.String())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, ": ") {
		t.Fatalf("stream opened with %q, %v; want its first comment", line, err)
	}
	close(hold) // the subscription is in place: let the model answer
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	frames := parseSSE(string(rest))
	var seen []string
	for _, f := range frames {
		seen = append(seen, f.event)
	}
	if last := frames[len(frames)-1]; last.event != "end" || !strings.Contains(last.data, `"reason":"session_log_failed"`) || !strings.Contains(last.data, syscall.ENOSPC.Error()) {
		t.Fatalf("stream ended with %+v, want end: session_log_failed with ENOSPC", last)
	}
	if !slices.Contains(seen, EvModelStep) || slices.Contains(seen, EvToolDispatch) {
		t.Fatalf("stream showed %v, want the model step and no intent: the step must be durable and its intents not", seen)
	}
	if n := len(notes.invocations()); n != 0 {
		t.Fatalf("%d tool calls sent without a durable intent, want none", n)
	}
	f := healthOf(t, r.m)
	if f.SessionID != adm.SessionID || f.RunID != adm.RunID || !strings.Contains(f.Error, syscall.ENOSPC.Error()) {
		t.Errorf("health reports %+v, want run %s failing with ENOSPC", f, adm.RunID)
	}

	if err := os.Remove(filepath.Join(disk, "filler")); err != nil {
		t.Fatal(err)
	}
	adm2, err := r.m.Send(context.Background(), testKey, Params{Prompt: "again"})
	if err != nil {
		t.Fatalf("send once the disk has room: %v", err)
	}
	if adm2.RunID == adm.RunID || adm2.Existing {
		t.Fatalf("send admitted %+v, want a new run", adm2)
	}
	if end := r.wait(adm2); end[len(end)-1].Reason != string(EndCompleted) {
		t.Errorf("new run ended %q, want completed", end[len(end)-1].Reason)
	}
	if err := r.m.Health(); err != nil {
		t.Errorf("Health after the seal = %v, want nil", err)
	}

	all := r.transcript(adm.SessionID)
	if n := len(ofType(all, EvToolDispatch)); n != 0 {
		t.Errorf("the log holds %d intents, want none (the failed batch is cut off)", n)
	}
	end := ofType(all, EvRunFinished)[0]
	if end.RunID != adm.RunID || end.Reason != string(EndInterrupted) || end.Error == nil || end.Error.Code != "log_failed" ||
		!strings.Contains(end.Error.Message, syscall.ENOSPC.Error()) {
		t.Errorf("first run ended %+v, want interrupted with the log's ENOSPC error", end)
	}
	if len(end.IndeterminateToolCalls) != 0 || len(end.NotDispatched) != len(calls) {
		t.Errorf("first run: %d indeterminate, %d not dispatched; want 0 and %d", len(end.IndeterminateToolCalls), len(end.NotDispatched), len(calls))
	}
	if n := len(notes.invocations()); n != 0 {
		t.Errorf("%d tool calls, want none", n)
	}
	info, err := r.m.Session(adm.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if ri := info.Runs[0]; ri.Reason != EndInterrupted || ri.Error == nil || ri.Error.Code != "log_failed" {
		t.Errorf("run index shows %+v, want interrupted with the log error", ri)
	}
	if errs := logs.at("error"); len(errs) != 1 {
		t.Errorf("error log lines %q, want one for the failure", errs)
	}
}

// A tool result cannot be written and, the disk staying full, neither can
// the run's end. Meanwhile the session answers 503 session_log_failed,
// never 409 session_busy, and Health reports it; the retry loop seals the
// run once the disk has room, with nobody asking, and logs the failure
// once.
func TestRunSealedOnceTheDiskHasRoom(t *testing.T) {
	t.Parallel()
	// Thirty calls with long ids: the run's interrupted end names them all
	// and takes more than a block, so it cannot be written into the last
	// block's slack while the disk is full.
	var calls []sdk.ToolCall
	for i := range 30 {
		calls = append(calls, call(fmt.Sprintf("c%02d_%s", i, strings.Repeat("x", 200)), "slow", `{}`))
	}
	script := func(step int, req *sdk.Request) (answer, error) {
		if lastPrompt(req) == "again" || step > 0 {
			return answer{text: "done", usage: usage(1, 1)}, nil
		}
		return answer{text: "working ", calls: calls, usage: usage(1, 1)}, nil
	}
	entered, release := make(chan string, len(calls)), make(chan struct{})
	slow := newTool(sdk.SideEffectUnsafe, "slow")
	slow.call = func(ctx context.Context, inv sdk.Invocation) (sdk.ToolResult, error) {
		entered <- inv.CallID
		if inv.CallID != calls[0].ID {
			<-ctx.Done()
			return sdk.ToolResult{}, ctx.Err()
		}
		<-release
		// Three blocks of output: its record needs blocks the disk lacks.
		return sdk.ToolResult{CallID: inv.CallID, Content: []sdk.Part{sdk.Text{Text: strings.Repeat("out ", 3<<10)}}}, nil
	}
	logs := newLogLines()
	r, disk := diskRig(t, "512k", script, map[string]Tool{"slow": slow}, func(o *Options) {
		o.Logger, o.SealRetry = logs.logger(), time.Millisecond
	})

	adm := r.send(Params{Prompt: "work", Tools: []string{"slow"}})
	for range calls {
		<-entered // every intent is durable: every call is in flight
	}
	smalldisk.Fill(t, disk, "filler", 0)
	_, err := followUntilFailure(t, r.m, adm, func() { close(release) })
	if !errors.Is(err, ErrLogFailed) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Follow = %v, want a session log failure wrapping ENOSPC", err)
	}
	// The loop tries again while the disk is full, and fails.
	logs.await(t, "not sealed yet")
	logs.await(t, "not sealed yet")

	rec := httptest.NewRecorder()
	body := fmt.Sprintf(`{"project_root":%q,"harness":%q,"session":%q,"prompt":"again"}`, testKey.ProjectRoot, testKey.Harness, testKey.Session)
	r.m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/sessions", strings.NewReader(body)))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"type":"session_log_failed"`) {
		t.Errorf("POST while the disk is full: %d %s, want 503 session_log_failed", rec.Code, rec.Body)
	}
	f := healthOf(t, r.m)
	if f.RunID != adm.RunID || f.SealAttempts < 2 || !strings.Contains(f.SealError, syscall.ENOSPC.Error()) {
		t.Errorf("health reports %+v, want run %s with failed seal attempts", f, adm.RunID)
	}
	if info, err := r.m.Session(adm.SessionID); err != nil || !strings.Contains(info.Error, "log failed") {
		t.Errorf("Session = %+v, %v; want the run index with the log failure", info, err)
	}

	if err := os.Remove(filepath.Join(disk, "filler")); err != nil {
		t.Fatal(err)
	}
	logs.await(t, "run sealed interrupted")
	if err := r.m.Health(); err != nil {
		t.Errorf("Health after the seal = %v, want nil", err)
	}
	if errs := logs.at("error"); len(errs) != 1 {
		t.Errorf("error log lines %q, want one for the failure, none per retry", errs)
	}

	all := r.transcript(adm.SessionID)
	end := ofType(all, EvRunFinished)
	if len(end) != 1 || end[0].Reason != string(EndInterrupted) || end[0].Error == nil || end[0].Error.Code != "log_failed" {
		t.Fatalf("run ends %+v, want one interrupted end with the log error", end)
	}
	// Every call was sent once and none has a durable result: all of them
	// are indeterminate, and none is sent again.
	if diff := cmp.Diff(callIDs(calls), end[0].IndeterminateToolCalls); diff != "" {
		t.Errorf("indeterminate calls (-want +got):\n%s", diff)
	}
	if n := len(ofType(all, EvToolResult)); n != 0 {
		t.Errorf("%d results in the log, want none", n)
	}
	adm2 := r.send(Params{Prompt: "again"})
	if evs := r.wait(adm2); evs[len(evs)-1].Reason != string(EndCompleted) {
		t.Errorf("new run ended %q, want completed", evs[len(evs)-1].Reason)
	}
	if n := len(slow.invocations()); n != len(calls) {
		t.Errorf("%d tool calls, want %d (each once)", n, len(calls))
	}
}

// A run whose log failed and that nothing sealed before SIGTERM is sealed
// by Shutdown when the disk has room by then, so the next start does not
// resume it and send the calls it had not sent.
func TestShutdownSealsARunWhoseLogFailed(t *testing.T) {
	t.Parallel()
	var calls []sdk.ToolCall
	for i := range 40 {
		calls = append(calls, call(fmt.Sprintf("c%02d", i), "append_note", `{}`))
	}
	hold, entered := make(chan struct{}), make(chan struct{})
	var held atomic.Bool
	script := func(step int, req *sdk.Request) (answer, error) {
		if step > 0 {
			return answer{text: "done", usage: usage(1, 1)}, nil
		}
		a := answer{text: "writing ", calls: calls, usage: usage(1, 1)}
		if !held.Swap(true) {
			a.hold, a.entered = hold, entered
		}
		return a, nil
	}
	notes := newTool(sdk.SideEffectUnsafe, "append_note")
	r, disk := diskRig(t, "256k", script, map[string]Tool{"notes": notes}, func(o *Options) { o.SealRetry = time.Hour })

	adm := r.send(Params{Prompt: "take notes", Tools: []string{"notes"}})
	<-entered
	smalldisk.Fill(t, disk, "filler", 1)
	if _, err := followUntilFailure(t, r.m, adm, func() { close(hold) }); !errors.Is(err, ErrLogFailed) {
		t.Fatalf("Follow = %v, want a session log failure", err)
	}
	if err := os.Remove(filepath.Join(disk, "filler")); err != nil {
		t.Fatal(err)
	}
	if err := r.m.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	r.m = r.start()
	if err := r.m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	end := ofType(r.transcript(adm.SessionID), EvRunFinished)
	if len(end) != 1 || end[0].Reason != string(EndInterrupted) || end[0].Error == nil || end[0].Error.Code != "log_failed" {
		t.Fatalf("run ends %+v after the restart, want one interrupted end with the log error", end)
	}
	if n := len(notes.invocations()); n != 0 {
		t.Errorf("%d tool calls after the restart, want none", n)
	}
}
