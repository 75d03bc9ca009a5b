package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// server is a running `axon serve`.
type server struct {
	t    *testing.T
	cmd  *exec.Cmd
	url  string
	logs *lockedBuffer
	done chan exit
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serve starts `axon serve` and returns once it listens.
func (w *world) serve(env ...string) *server {
	w.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "axon"), "--config", w.config, "serve", "--grace", "5s")
	cmd.Env = append(cleanEnv(w.dir), env...)
	logs := &lockedBuffer{}
	cmd.Stderr = logs
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	s := &server{t: w.t, cmd: cmd, logs: logs, done: make(chan exit, 1)}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "axon listening on "); ok {
				urls <- strings.Fields(rest)[0]
			}
		}
		close(urls)
		err := cmd.Wait()
		var ee *exec.ExitError
		x := exit{output: logs.String()}
		if errors.As(err, &ee) {
			ws := ee.Sys().(syscall.WaitStatus)
			x.code, x.killed = ws.ExitStatus(), ws.Signaled() && ws.Signal() == syscall.SIGKILL
		}
		s.done <- x
	}()
	url, ok := <-urls
	if !ok {
		x := <-s.done
		w.t.Fatalf("axon serve exited %d before listening:\n%s", x.code, x.output)
	}
	s.url = url
	w.t.Cleanup(func() { cmd.Process.Kill() })
	return s
}

// stop sends SIGTERM and returns how the process ended.
func (s *server) stop() exit {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.t.Fatal(err)
	}
	return <-s.done
}

func (s *server) post(path, body string) (int, string) {
	s.t.Helper()
	resp, err := http.Post(s.url+path, "application/json", strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// events reads the SSE stream at path (with Last-Event-ID lastID when set)
// until it ends or breaks, and returns its control frames.
func (s *server) events(path, lastID string) (frames []sseFrame, ended bool) {
	s.t.Helper()
	req, _ := http.NewRequest("GET", s.url+path, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		s.t.Fatalf("events: %d %s", resp.StatusCode, b)
	}
	body, _ := io.ReadAll(resp.Body) // a killed server breaks the stream: keep what came
	for _, f := range parseSSE(string(body)) {
		switch {
		case f.event == "end":
			ended = true
		case f.id != "":
			frames = append(frames, f)
		}
	}
	return frames, ended
}

const serveBody = `{"project_root":"/crash","harness":"cli","session":"crash","idempotency_key":"k1","tools":["notes"],"prompt":"%s"}`

// axon serve, killed after a model step over HTTP, resumes the run on its
// next start; a subscriber that lost the stream in the crash reconnects
// with Last-Event-ID and sees the rest of the control lane exactly once.
func TestServeResumesAfterKill(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, 3, 2)
	w := newWorld(t, up)
	srv := w.serve("AXON_FAILPOINT=after_model_step:2")
	status, body := srv.post("/v1/sessions", strings.Replace(serveBody, "%s", "take notes", 1))
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, body)
	}
	var adm Admitted
	if err := json.Unmarshal([]byte(body), &adm); err != nil {
		t.Fatal(err)
	}
	path := "/v1/sessions/" + adm.SessionID + "/events?display=false&run=" + adm.RunID + "&after=" + adm.After.String()
	before, ended := srv.events(path, "")
	if ended {
		t.Fatal("the stream ended cleanly: the failpoint did not kill the server")
	}
	if x := <-srv.done; !x.killed {
		t.Fatalf("server exited %d, want killed at the failpoint:\n%s", x.code, x.output)
	}
	if len(before) == 0 {
		t.Fatal("no event before the kill")
	}

	srv = w.serve()
	after, ended := srv.events(path, before[len(before)-1].id)
	if !ended {
		t.Fatal("the resumed run's stream did not end")
	}
	got := append(before, after...)
	all, _ := srv.events(path, "")
	if diff := cmp.Diff(all, got, cmp.AllowUnexported(sseFrame{})); diff != "" {
		t.Errorf("events across the crash (-whole stream +seen by the reconnecting subscriber):\n%s", diff)
	}
	if x := srv.stop(); x.code != 0 || x.killed {
		t.Fatalf("SIGTERM: exit %d:\n%s", x.code, x.output)
	}
	if o := w.check(); o.reason != EndCompleted || o.entries != 6 {
		t.Errorf("outcome %+v, want completed with 6 entries", o)
	}
}

// SIGTERM during a model step: axon serve stops admitting, cancels the
// call, seals the run interrupted and exits 0; `axon sessions` and `axon
// wal verify` then read the result.
func TestServeSIGTERMSealsRunsInterrupted(t *testing.T) {
	t.Parallel()
	up := newUpstream(t, 3, 2)
	w := newWorld(t, up)
	srv := w.serve()
	if status, body := srv.post("/v1/sessions", strings.Replace(serveBody, "%s", "hang on", 1)); status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, body)
	}
	<-up.hung // the model call is in flight
	if x := srv.stop(); x.code != 0 || x.killed {
		t.Fatalf("SIGTERM: exit %d:\n%s", x.code, x.output)
	}
	if o := w.check(); o.reason != EndInterrupted || o.intents != 0 {
		t.Errorf("outcome %+v, want interrupted before any tool call", o)
	}

	x := w.axon(nil, "sessions", "--json")
	var list []SessionInfo
	if err := json.Unmarshal([]byte(x.output), &list); x.code != 0 || err != nil {
		t.Fatalf("axon sessions: exit %d, %v:\n%s", x.code, err, x.output)
	}
	if len(list) != 1 || list[0].Key != crashKey || list[0].LastRun().Reason != EndInterrupted || list[0].HeldElsewhere {
		t.Errorf("axon sessions: %+v", list)
	}
	x = w.axon(nil, "sessions")
	if x.code != 0 || !strings.Contains(x.output, "finished: interrupted") {
		t.Errorf("axon sessions table: exit %d:\n%s", x.code, x.output)
	}
	walPath := filepath.Join(w.state, "sessions", crashKey.ID(), walFile)
	x = w.axon(nil, "wal", "verify", walPath)
	if x.code != 0 || !strings.Contains(x.output, ": ok: lineage ") || !strings.Contains(x.output, " 2 records") {
		t.Errorf("axon wal verify: exit %d:\n%s", x.code, x.output)
	}
	// The ID `axon sessions` prints names the same log.
	x = w.axon(nil, "wal", "verify", crashKey.ID())
	if x.code != 0 || !strings.Contains(x.output, walPath+": ok: lineage ") {
		t.Errorf("axon wal verify %s: exit %d:\n%s", crashKey.ID(), x.code, x.output)
	}
	// Damage the first record (RunStarted), which the second proves synced.
	b, err := os.ReadFile(walPath)
	if err != nil {
		t.Fatal(err)
	}
	b[32+28+10] ^= 0x01
	damaged := filepath.Join(w.dir, "damaged-wal")
	if err := os.WriteFile(damaged, b, 0o600); err != nil {
		t.Fatal(err)
	}
	x = w.axon(nil, "wal", "verify", damaged)
	if x.code != 1 || !strings.Contains(x.output, "corrupt at offset 32") {
		t.Errorf("axon wal verify of a damaged log: exit %d:\n%s", x.code, x.output)
	}
}
