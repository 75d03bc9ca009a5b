package session

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/axonhq/axon/host/wal"
)

var crashSweep = flag.Bool("crash.sweep", false, "crash harness: also kill the resumed process at every later point, and run random kill chains (slow)")

// world is one crash scenario: a state directory, a notes directory and a
// configuration for the real axon, whose model is the shared upstream.
type world struct {
	t                 *testing.T
	dir, state, notes string
	config, trace     string
}

// crashKey is the session every crash scenario runs.
var crashKey = Key{ProjectRoot: "/crash", Harness: "cli", Session: "crash"}

func newWorld(t *testing.T, up *upstream) *world {
	t.Helper()
	dir := t.TempDir()
	w := &world{t: t, dir: dir, state: filepath.Join(dir, "state"), notes: filepath.Join(dir, "notes"), config: filepath.Join(dir, "axon.hcl"), trace: filepath.Join(dir, "trace")}
	cfg := fmt.Sprintf(`
axon {
  state_dir  = %q
  plugin_dir = %q
  listen     = "127.0.0.1:0"
}
provider "mock" {
  plugin   = "openai"
  base_url = "%s/v1"
  model    = "mock-1"
}
chain "default" {
  providers = [provider.mock]
  retry {
    attempts = 2
    backoff  = "10ms"
  }
}
tool "notes" {
  plugin = "notes"
  dir    = %q
  grant {
    read_write = [%q]
  }
}
`, w.state, binDir, up.URL, w.notes, w.notes)
	if err := os.WriteFile(w.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

// runArgs is the command every scenario runs, killed or not: same session,
// same idempotency key, so a restart finds (and shows) the same run.
var runArgs = []string{"run", "--session", crashKey.Session, "--project-root", crashKey.ProjectRoot, "--harness", crashKey.Harness,
	"--idempotency-key", "k1", "--tools", "notes", "--max-turns", "8", "take notes"}

// exit is how one axon process ended.
type exit struct {
	code   int
	killed bool
	output string
}

// axon runs the real binary to its end, with env added to a clean
// environment (no AXON_* of the caller's).
func (w *world) axon(env []string, args ...string) exit {
	w.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "axon"), append([]string{"--config", w.config}, args...)...)
	cmd.Env = append(cleanEnv(w.dir), env...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return exit{output: string(out)}
	case errors.As(err, &ee):
		ws := ee.Sys().(syscall.WaitStatus)
		return exit{code: ws.ExitStatus(), killed: ws.Signaled() && ws.Signal() == syscall.SIGKILL, output: string(out)}
	}
	w.t.Fatalf("axon %v: %v", args, err)
	return exit{}
}

func cleanEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AXON_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home)
}

// outcome is what a scenario's disk says about its run.
type outcome struct {
	reason        EndReason
	indeterminate []string
	intents       int
	entries       int
}

var entryRE = regexp.MustCompile(`entry (call_s\d+_\d+)`)

// check reads the session WAL and the notes and fails the test where
// they break an invariant of at-most-once dispatch (see audit).
func (w *world) check() outcome {
	w.t.Helper()
	o, problems := w.audit()
	for _, p := range problems {
		w.t.Error(p)
	}
	if w.t.Failed() {
		w.t.FailNow()
	}
	return o
}

// audit lists every broken invariant:
//   - the log verifies, and holds one run, sealed exactly once;
//   - no tool call has two intents (nothing was sent again);
//   - a run that completed has a result for every intent; one that was
//     interrupted names exactly the intents without a result;
//   - no note entry appears twice, every entry has an intent (nothing was
//     sent without one), and every call whose result says it appended has
//     its entry.
func (w *world) audit() (outcome, []string) {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	path := filepath.Join(w.state, "sessions", crashKey.ID(), walFile)
	if _, err := wal.Verify(path); err != nil {
		fail("wal verify: %v", err)
		return outcome{}, problems
	}
	l, err := wal.Open(path)
	if err != nil {
		fail("wal open: %v", err)
		return outcome{}, problems
	}
	defer l.Close()
	starts := 0
	intents := map[string]int{}
	results := map[string]*ToolOutput{}
	var ends []*RunEnd
	err = l.Replay(0, func(_ uint64, payload []byte) error {
		rec, err := DecodeRecord(payload)
		if err != nil {
			return err
		}
		switch rec.Type {
		case RecRunStarted:
			starts++
		case RecToolDispatch:
			intents[rec.Intent.CallID]++
		case RecToolResult:
			results[rec.Result.CallID] = rec.Result
		case RecRunFinished:
			ends = append(ends, rec.Finished)
		}
		return nil
	})
	if err != nil {
		fail("replay: %v", err)
	}
	if starts != 1 || len(ends) != 1 {
		fail("%d runs started and %d sealed, want 1 and 1", starts, len(ends))
		return outcome{}, problems
	}
	var unanswered []string
	for id, n := range intents {
		if n > 1 {
			fail("call %s has %d intents: it was sent again", id, n)
		}
		if results[id] == nil {
			unanswered = append(unanswered, id)
		}
	}
	slices.Sort(unanswered)
	end := ends[0]
	switch end.Reason {
	case EndCompleted:
		if len(unanswered) > 0 {
			fail("completed with calls %v unanswered", unanswered)
		}
	case EndInterrupted:
		got := slices.Sorted(slices.Values(end.IndeterminateToolCalls))
		if !slices.Equal(got, unanswered) {
			fail("interrupted naming %v, want exactly the unanswered intents %v", got, unanswered)
		}
	default:
		fail("run ended %q (%+v), want completed or interrupted", end.Reason, end.Error)
	}

	notes, err := os.ReadFile(filepath.Join(w.notes, "log.md"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		fail("notes: %v", err)
	}
	entries := map[string]int{}
	for _, m := range entryRE.FindAllStringSubmatch(string(notes), -1) {
		entries[m[1]]++
	}
	for id, n := range entries {
		if n > 1 {
			fail("note entry %s appended %d times", id, n)
		}
		if intents[id] == 0 {
			fail("note entry %s appended without an intent", id)
		}
	}
	for id, res := range results {
		if !res.IsError && entries[id] != 1 {
			fail("call %s answered %q but its entry is in the note %d times", id, contentText(res), entries[id])
		}
	}
	return outcome{reason: end.Reason, indeterminate: end.IndeterminateToolCalls, intents: len(intents), entries: len(entries)}, problems
}

func contentText(o *ToolOutput) string {
	var b strings.Builder
	for _, p := range o.Content {
		b.WriteString(p.Text)
	}
	return b.String()
}

// finishRun restarts axon until the run is sealed (a restart may itself be
// killed by env's failpoint) and checks how the last process exited.
func (w *world) finishRun(env ...[]string) {
	w.t.Helper()
	for _, e := range append(env, nil) {
		x := w.axon(e, runArgs...)
		if x.killed && e != nil {
			continue
		}
		if x.killed || (x.code != 0 && x.code != exitInterrupted) {
			w.t.Fatalf("restart exited %d (killed %v):\n%s", x.code, x.killed, x.output)
		}
		o := w.check()
		if (x.code == 0) != (o.reason == EndCompleted) {
			w.t.Errorf("exit %d for a run that ended %s:\n%s", x.code, o.reason, x.output)
		}
		return
	}
}

// exitInterrupted is `axon run`'s exit status for an interrupted run.
const exitInterrupted = 3

// crashPoints runs the scenario once without a kill, tracing the failpoints
// it passes, and returns their names in order.
func crashPoints(t *testing.T, up *upstream) []string {
	t.Helper()
	w := newWorld(t, up)
	x := w.axon([]string{"AXON_FAILPOINT_TRACE=" + w.trace}, runArgs...)
	if x.code != 0 || x.killed {
		t.Fatalf("clean run exited %d:\n%s", x.code, x.output)
	}
	if o := w.check(); o.reason != EndCompleted || o.entries != up.steps*up.perStep {
		t.Fatalf("clean run: %+v, want completed with %d entries", o, up.steps*up.perStep)
	}
	b, err := os.ReadFile(w.trace)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// TestCrashHarness runs the real axon (axon run, the openai provider
// plugin, the notes tool plugin) against a scripted model that asks for
// append_note calls, and SIGKILLs it at every failpoint the run passes:
// before and after RunStarted, after each ModelStepFinished, after each
// step's intents (before dispatch), after each tool returned (before its
// result is written), after each result, and around RunFinished. After
// each kill it restarts axon with the same command; the run must resume or
// end interrupted, and no note may ever be appended twice (world.check).
// Some points also kill the restarted process once more. -crash.sweep adds
// every second kill point and random chains of kills.
func TestCrashHarness(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, 3, 2)
	points := crashPoints(t, up)
	t.Logf("%d failpoints in a clean run: %s", len(points), strings.Join(points, " "))
	interrupted, scenarios := 0, 0
	for n := 1; n <= len(points); n++ {
		var seconds []int // kill the restarted process too, at these points
		switch {
		case *crashSweep:
			for m := 1; m <= len(points); m++ {
				seconds = append(seconds, m)
			}
		case n%2 == 0:
			seconds = []int{2}
		}
		for _, m := range append([]int{0}, seconds...) {
			name := fmt.Sprintf("%02d-%s", n, points[n-1])
			if m > 0 {
				name += fmt.Sprintf("/then-%d", m)
			}
			scenarios++
			t.Run(name, func(t *testing.T) {
				w := newWorld(t, up)
				if x := w.axon([]string{"AXON_FAILPOINT=*:" + strconv.Itoa(n)}, runArgs...); !x.killed {
					t.Fatalf("failpoint %d was not reached: exit %d\n%s", n, x.code, x.output)
				}
				if m > 0 {
					w.finishRun([]string{"AXON_FAILPOINT=*:" + strconv.Itoa(m)})
				} else {
					w.finishRun()
				}
				if o := w.check(); o.reason == EndInterrupted {
					interrupted++
				}
			})
		}
	}
	t.Logf("%d scenarios over %d kill points: %d runs ended interrupted, %d resumed to completion", scenarios, len(points), interrupted, scenarios-interrupted)
	if interrupted == 0 {
		t.Error("no kill point left an indeterminate call: the harness never hit the window between intent and result")
	}
	if *crashSweep {
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range 50 {
			chain := []string{}
			for range 1 + rng.IntN(4) {
				chain = append(chain, "AXON_FAILPOINT=*:"+strconv.Itoa(1+rng.IntN(len(points))))
			}
			t.Run(fmt.Sprintf("random-%02d", i), func(t *testing.T) {
				w := newWorld(t, up)
				envs := make([][]string, len(chain))
				for j, e := range chain {
					envs[j] = []string{e}
				}
				w.finishRun(envs...)
			})
		}
	}
}
