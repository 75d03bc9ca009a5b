package session

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/axonhq/axon/host/internal/testbin"
	"github.com/axonhq/axon/host/wal"
	"github.com/axonhq/axon/sdk"
)

// mcpBins builds, once and only for the tests that need them, the mcp
// tool plugin and the example MCP server into binDir beside the binaries
// TestMain built.
var mcpBins = sync.OnceValue(func() error {
	return testbin.BuildInto(binDir,
		testbin.Target{Name: "axon-tool-mcp", Pkg: "../../plugins/tool-mcp"},
		testbin.Target{Name: "mcp-notes", Pkg: "../../examples/mcp-notes"},
	)
})

// mcpScript is what the scripted model asks for, one call a step: append,
// read back, append again. Each call's id names its step.
var mcpScript = []struct {
	tool string
	args map[string]string
}{
	{"append_note", map[string]string{"note": "log", "text": "entry call_s0"}},
	{"read_note", map[string]string{"note": "log"}},
	{"append_note", map[string]string{"note": "log", "text": "entry call_s2"}},
}

// mcpModel is a scripted model speaking OpenAI chat completions
// (streamed), stateless like upstream: the step is the number of
// assistant turns since the last user message.
func mcpModel(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req chatRequest
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, `{"error":{"message":"bad json","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		step := 0
		for _, m := range req.Messages {
			switch m.Role {
			case "user":
				step = 0
			case "assistant":
				step++
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(v string) {
			io.WriteString(w, "data: "+v+"\n\n")
			w.(http.Flusher).Flush()
		}
		if step < len(mcpScript) {
			args, _ := json.Marshal(mcpScript[step].args)
			tc, _ := json.Marshal(map[string]any{"index": 0, "id": fmt.Sprintf("call_s%d", step), "type": "function",
				"function": map[string]string{"name": mcpScript[step].tool, "arguments": string(args)}})
			chunk(`{"id":"c","object":"chat.completion.chunk","model":"mock-1","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[` + string(tc) + `]}}]}`)
			chunk(`{"id":"c","object":"chat.completion.chunk","model":"mock-1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
		} else {
			chunk(`{"id":"c","object":"chat.completion.chunk","model":"mock-1","choices":[{"index":0,"delta":{"content":"Done."}}]}`)
			chunk(`{"id":"c","object":"chat.completion.chunk","model":"mock-1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
		}
		chunk(`{"id":"c","object":"chat.completion.chunk","model":"mock-1","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":10,"total_tokens":30}}`)
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// newMCPWorld is a world whose one tool block is examples/mcp-notes behind
// the sandboxed axon-tool-mcp, its notes (and calls.log) in w.notes.
func newMCPWorld(t *testing.T, model *httptest.Server) *world {
	t.Helper()
	if err := mcpBins(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	w := &world{t: t, dir: dir, state: filepath.Join(dir, "state"), notes: filepath.Join(dir, "notes"), config: filepath.Join(dir, "axon.hcl"), trace: filepath.Join(dir, "trace")}
	if err := os.MkdirAll(w.notes, 0o700); err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(binDir, "mcp-notes")
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
}
tool "notes-mcp" {
  plugin  = "mcp"
  command = [%q, "--root", %q]
  grant {
    read_only  = [%q]
    read_write = [%q]
  }
}
`, w.state, binDir, model.URL, server, w.notes, server, w.notes)
	if err := os.WriteFile(w.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

var mcpRunArgs = []string{"run", "--session", crashKey.Session, "--project-root", crashKey.ProjectRoot, "--harness", crashKey.Harness,
	"--idempotency-key", "k1", "--tools", "notes-mcp", "--max-turns", "8", "take notes"}

// mcpOutcome is what a scenario's disk says: the run's end, and how often
// the server itself logged each call (calls.log, in the granted dir).
type mcpOutcome struct {
	reason  EndReason
	intents map[string]ToolIntent
	results map[string]*ToolOutput
	appends map[string]int // call id → append_note calls the server saw
	reads   int            // read_note calls the server saw
}

var mcpCallRE = regexp.MustCompile(`(?m)^(append_note|read_note) log "(?:entry (call_s\d+))?"$`)

// mcpCheck audits the WAL and the server's call log, failing the test
// where they break at-most-once for the unsafe tool:
//   - the log verifies and holds one run, sealed once; no call has two intents;
//   - completed: every intent answered; interrupted: exactly the unanswered
//     intents named indeterminate;
//   - the server saw each append_note at most once, never without an
//     intent, and exactly once when its result says it appended.
func (w *world) mcpCheck() mcpOutcome {
	w.t.Helper()
	path := filepath.Join(w.state, "sessions", crashKey.ID(), walFile)
	if _, err := wal.Verify(path); err != nil {
		w.t.Fatalf("wal verify: %v", err)
	}
	l, err := wal.Open(path)
	if err != nil {
		w.t.Fatal(err)
	}
	defer l.Close()
	o := mcpOutcome{intents: map[string]ToolIntent{}, results: map[string]*ToolOutput{}, appends: map[string]int{}}
	starts, intents := 0, map[string]int{}
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
			o.intents[rec.Intent.CallID] = *rec.Intent
		case RecToolResult:
			o.results[rec.Result.CallID] = rec.Result
		case RecRunFinished:
			ends = append(ends, rec.Finished)
		}
		return nil
	})
	if err != nil {
		w.t.Fatalf("replay: %v", err)
	}
	if starts != 1 || len(ends) != 1 {
		w.t.Fatalf("%d runs started and %d sealed, want 1 and 1", starts, len(ends))
	}
	o.reason = ends[0].Reason
	var unanswered []string
	for id, n := range intents {
		if n > 1 {
			w.t.Errorf("call %s has %d intents: it was sent again", id, n)
		}
		if o.results[id] == nil {
			unanswered = append(unanswered, id)
		}
	}
	slices.Sort(unanswered)
	switch o.reason {
	case EndCompleted:
		if len(unanswered) > 0 {
			w.t.Errorf("completed with calls %v unanswered", unanswered)
		}
	case EndInterrupted:
		if got := slices.Sorted(slices.Values(ends[0].IndeterminateToolCalls)); !slices.Equal(got, unanswered) {
			w.t.Errorf("interrupted naming %v, want exactly the unanswered intents %v", got, unanswered)
		}
	default:
		w.t.Errorf("run ended %q (%+v), want completed or interrupted", o.reason, ends[0].Error)
	}

	log, err := os.ReadFile(filepath.Join(w.notes, "calls.log"))
	if err != nil && !os.IsNotExist(err) {
		w.t.Fatal(err)
	}
	for _, m := range mcpCallRE.FindAllStringSubmatch(string(log), -1) {
		if m[1] == "read_note" {
			o.reads++
		} else {
			o.appends[m[2]]++
		}
	}
	if n := strings.Count(string(log), "\n"); n != o.reads+total(o.appends) {
		w.t.Errorf("calls.log has lines the audit does not know:\n%s", log)
	}
	for id, n := range o.appends {
		if n > 1 {
			w.t.Errorf("append_note %s reached the server %d times", id, n)
		}
		if intents[id] == 0 {
			w.t.Errorf("append_note %s reached the server without an intent", id)
		}
	}
	for id, res := range o.results {
		if res.Name == "append_note" && !res.IsError && o.appends[id] != 1 {
			w.t.Errorf("append_note %s answered %q but the server saw it %d times", id, contentText(res), o.appends[id])
		}
	}
	if w.t.Failed() {
		w.t.Logf("calls.log:\n%s", log)
		w.t.FailNow()
	}
	return o
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// TestMCPSessionRun: a durable session calls both tools of
// examples/mcp-notes through the sandboxed axon-tool-mcp. The side-effect
// classes the WAL records are the ones the server's annotations imply,
// and the server saw each call exactly once.
func TestMCPSessionRun(t *testing.T) {
	t.Parallel()
	w := newMCPWorld(t, mcpModel(t))
	x := w.axon(nil, mcpRunArgs...)
	if x.code != 0 || x.killed {
		t.Fatalf("axon run exited %d:\n%s", x.code, x.output)
	}
	o := w.mcpCheck()
	if o.reason != EndCompleted || o.reads != 1 || len(o.appends) != 2 {
		t.Fatalf("%+v, want completed with one read and two appends", o)
	}
	want := map[string]sdk.SideEffect{"call_s0": sdk.SideEffectUnsafe, "call_s1": sdk.SideEffectNone, "call_s2": sdk.SideEffectUnsafe}
	for id, se := range want {
		if got := o.intents[id]; got.SideEffect != se || got.Block != "notes-mcp" {
			t.Errorf("intent %s: %+v, want side effect %s in block notes-mcp", id, got, se)
		}
	}
	if got := contentText(o.results["call_s1"]); got != "entry call_s0\n" {
		t.Errorf("read_note saw %q, want the first append", got)
	}
	if b, _ := os.ReadFile(filepath.Join(w.notes, "log.md")); string(b) != "entry call_s0\nentry call_s2\n" {
		t.Errorf("the note holds %q", b)
	}
}

// TestMCPCrashHarness kills `axon run` (SIGKILL, at each failpoint of a
// clean run) while it drives examples/mcp-notes through axon-tool-mcp,
// then runs it again to the end. The destructive append_note never reaches
// the server twice, whatever the kill point; the read-only read_note is
// sent again when a kill left its outcome unknown.
func TestMCPCrashHarness(t *testing.T) {
	t.Parallel()
	model := mcpModel(t)
	clean := newMCPWorld(t, model)
	if x := clean.axon([]string{"AXON_FAILPOINT_TRACE=" + clean.trace}, mcpRunArgs...); x.code != 0 || x.killed {
		t.Fatalf("clean run exited %d:\n%s", x.code, x.output)
	}
	clean.mcpCheck()
	b, err := os.ReadFile(clean.trace)
	if err != nil {
		t.Fatal(err)
	}
	points := strings.Fields(string(b))
	t.Logf("%d failpoints in a clean run: %s", len(points), strings.Join(points, " "))

	var mu sync.Mutex
	interrupted, rereads := 0, 0
	t.Run("kills", func(t *testing.T) {
		for n := 1; n <= len(points); n++ {
			t.Run(fmt.Sprintf("%02d-%s", n, points[n-1]), func(t *testing.T) {
				t.Parallel()
				w := newMCPWorld(t, model)
				if x := w.axon([]string{"AXON_FAILPOINT=*:" + strconv.Itoa(n)}, mcpRunArgs...); !x.killed {
					t.Fatalf("failpoint %d was not reached: exit %d\n%s", n, x.code, x.output)
				}
				x := w.axon(nil, mcpRunArgs...)
				if x.killed || (x.code != 0 && x.code != exitInterrupted) {
					t.Fatalf("restart exited %d:\n%s", x.code, x.output)
				}
				o := w.mcpCheck()
				if (x.code == 0) != (o.reason == EndCompleted) {
					t.Errorf("exit %d for a run that ended %s:\n%s", x.code, o.reason, x.output)
				}
				// The kill right after the server answered, before the
				// result was logged: the call reached the server once;
				// an append is then never sent again (the run ends
				// interrupted), a read is.
				if step := strings.Count(strings.Join(points[:n], " "), "after_intents") - 1; points[n-1] == "after_tool_return" {
					id := fmt.Sprintf("call_s%d", step)
					switch mcpScript[step].tool {
					case "append_note":
						if o.reason != EndInterrupted || o.appends[id] != 1 {
							t.Errorf("killed after %s answered: %+v, want interrupted with the append seen once", id, o)
						}
					case "read_note":
						if o.reason != EndCompleted || o.reads != 2 {
							t.Errorf("killed after %s answered: %+v, want completed with read_note sent again", id, o)
						}
					}
				}
				mu.Lock()
				defer mu.Unlock()
				if o.reason == EndInterrupted {
					interrupted++
				}
				if o.reads > 1 {
					rereads++
				}
			})
		}
	})
	t.Logf("%d kill points: %d runs ended interrupted (an append's outcome unknown), %d sent read_note again", len(points), interrupted, rereads)
	if interrupted == 0 {
		t.Error("no kill point left an append_note's outcome unknown: the harness never hit the window between intent and result")
	}
	if rereads == 0 {
		t.Error("no kill point made the run send read_note again")
	}
}
