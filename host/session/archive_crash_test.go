package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// axonAt runs the real axon binary (built with -tags failpoints) on the
// world's state directory.
func (w *archiveWorld) axon(env []string, args ...string) exit {
	w.t.Helper()
	config := filepath.Join(w.state, "axon.hcl")
	if _, err := os.Stat(config); err != nil {
		cfg := fmt.Sprintf("axon {\n  state_dir = %q\n}\nprovider \"local\" { preset = \"ollama\" }\nchain \"default\" { providers = [provider.local] }\n", w.state)
		if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
			w.t.Fatal(err)
		}
	}
	cmd := exec.Command(filepath.Join(binDir, "axon"), append([]string{"--config", config}, args...)...)
	cmd.Env = append(cleanEnv(w.state), env...)
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

func (w *archiveWorld) ids() []string {
	var ids []string
	for _, k := range w.keys {
		ids = append(ids, k.ID())
	}
	return ids
}

// mustAxon runs axon to a clean exit.
func (w *archiveWorld) mustAxon(args ...string) string {
	w.t.Helper()
	e := w.axon(nil, args...)
	if e.code != 0 || e.killed {
		w.t.Fatalf("axon %v: exit %d (killed %v):\n%s", args, e.code, e.killed, e.output)
	}
	return e.output
}

// trace runs the scenario's command once to its end and returns the
// failpoints it passed.
func (w *archiveWorld) trace(args ...string) []string {
	w.t.Helper()
	path := filepath.Join(w.state, "trace")
	if e := w.axon([]string{"AXON_FAILPOINT_TRACE=" + path}, args...); e.code != 0 {
		w.t.Fatalf("traced axon %v: exit %d:\n%s", args, e.code, e.output)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// crashScenario is one command of the archive or the restore, killed at
// each of its steps in turn.
type crashScenario struct {
	name  string
	setup func(w *archiveWorld) // from a world of three closed sessions
	args  func(w *archiveWorld) []string
}

// TestArchiveKilledAtEveryStep SIGKILLs `axon wal archive` and `axon wal
// restore` at every failpoint they pass (AXON_FAILPOINT=*:N, no sleeps),
// then checks what recovery must give: every session resolves to exactly
// one log and reads back its transcript as written; and after one clean
// archive pass, `axon wal verify` is clean and no session is both live and
// archived without the copy superseded.
func TestArchiveKilledAtEveryStep(t *testing.T) {
	t.Parallel()
	all := func(w *archiveWorld) []string { return append([]string{"wal", "archive"}, w.ids()...) }
	scenarios := []crashScenario{
		{
			name:  "archive",
			setup: func(*archiveWorld) {},
			args:  all,
		},
		{
			name:  "restore",
			setup: func(w *archiveWorld) { w.archive(ArchiveOptions{}) },
			args:  func(w *archiveWorld) []string { return []string{"wal", "restore", w.keys[0].ID()} },
		},
		{
			// A restored session archived again: the stale copy is
			// superseded first, and its container, all superseded, removed.
			name: "archive again",
			setup: func(w *archiveWorld) {
				w.archive(ArchiveOptions{Sessions: []string{w.keys[0].ID()}})
				if ok, err := Restore(w.sessions, w.keys[0].ID()); !ok || err != nil {
					w.t.Fatalf("restore: %v, %v", ok, err)
				}
			},
			args: all,
		},
		{
			// A restore killed after its rename left the live log and its
			// archived copy unmarked: the pass marks the copy first.
			name: "archive after a cut restore",
			setup: func(w *archiveWorld) {
				w.archive(ArchiveOptions{Sessions: []string{w.keys[0].ID()}})
				if e := w.axon([]string{"AXON_FAILPOINT=restore_renamed:1"}, "wal", "restore", w.keys[0].ID()); !e.killed {
					w.t.Fatalf("restore not killed: %+v", e)
				}
			},
			args: all,
		},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			clean := newArchiveWorld(t, 3)
			sc.setup(clean)
			points := clean.trace(sc.args(clean)...)
			if len(points) == 0 {
				t.Fatal("the command passed no failpoint")
			}
			t.Logf("%d failpoints: %v", len(points), points)
			for n := 1; n <= len(points); n++ {
				t.Run(fmt.Sprintf("%d_%s", n, points[n-1]), func(t *testing.T) {
					t.Parallel()
					w := newArchiveWorld(t, 3)
					sc.setup(w)
					e := w.axon([]string{fmt.Sprintf("AXON_FAILPOINT=*:%d", n)}, sc.args(w)...)
					if !e.killed {
						t.Fatalf("axon was not killed at failpoint %d (%s): exit %d\n%s", n, points[n-1], e.code, e.output)
					}
					w.checkResolved(false)
					w.mustAxon(all(w)...) // the cleanup pass, completing the archive
					w.checkResolved(true)
					out := w.mustAxon("wal", "verify")
					if strings.Contains(out, "not marked superseded") {
						t.Errorf("verify after the cleanup pass:\n%s", out)
					}
					places, _ := Places(w.sessions)
					for _, pl := range places {
						if pl.Live || pl.Container == "" {
							t.Errorf("session %s not archived after the cleanup pass: %+v", pl.Session, pl)
						}
					}
					// A new prompt on every session: restored if need be, continued.
					m := w.manager()
					for _, k := range w.keys {
						adm, err := m.Send(context.Background(), k, Params{Prompt: "after the crash"})
						if err != nil {
							t.Fatalf("send to %s after the crash: %v", k.ID(), err)
						}
						waitRun(t, m, adm)
						got := transcriptOf(t, m, k.ID())
						if prev := w.transcripts[k.ID()]; len(got) <= len(prev) || fmt.Sprint(got[:len(prev)]) != fmt.Sprint(prev) {
							t.Errorf("session %s: the new run does not continue the log as written", k.ID())
						}
					}
				})
			}
		})
	}
}

// `axon wal verify` catches a damaged container and exits 1, naming it.
func TestWALVerifyCatchesADamagedContainer(t *testing.T) {
	t.Parallel()
	w := newArchiveWorld(t, 2)
	res := w.archive(ArchiveOptions{})
	if out := w.mustAxon("wal", "verify"); !strings.Contains(out, "ok: sealed, 2 logs") || !strings.Contains(out, "2 archived") {
		t.Fatalf("verify of a clean archive:\n%s", out)
	}
	path := res.Containers[0]
	b, _ := os.ReadFile(path)
	e := res.Archived[len(res.Archived)-1]
	at := len(b) - 1024 - int((e.Size+511)/512*512) + int(e.Size) - 5 // inside the last log's last record
	b[at] ^= 0x01
	os.Chmod(path, 0o600)
	if err := os.WriteFile(path, b, 0o400); err != nil {
		t.Fatal(err)
	}
	got := w.axon(nil, "wal", "verify")
	if got.code != 1 || !strings.Contains(got.output, path+": "+e.Session+": corrupt") || !strings.Contains(got.output, "digest mismatch") {
		t.Fatalf("verify of a damaged container: exit %d:\n%s", got.code, got.output)
	}
	if one := w.axon(nil, "wal", "verify", e.Session); one.code != 1 {
		t.Errorf("verify %s (archived, damaged): exit %d:\n%s", e.Session, one.code, one.output)
	}
	if one := w.axon(nil, "wal", "restore", e.Session); one.code == 0 || !strings.Contains(one.output, "digest mismatch") {
		t.Errorf("restore of the damaged copy: exit %d:\n%s", one.code, one.output)
	}
}

// `axon run` on an archived session (in process, no daemon): the real
// binary restores the log from the archive and runs the new prompt on it,
// with the real provider and tool plugins.
func TestAxonRunOnAnArchivedSession(t *testing.T) {
	t.Parallel()
	w := newWorld(t, newUpstream(t, 1, 1))
	if x := w.axon(nil, runArgs...); x.code != 0 {
		t.Fatalf("first run: exit %d\n%s", x.code, x.output)
	}
	id := crashKey.ID()
	sessions := filepath.Join(w.state, "sessions")
	if x := w.axon(nil, "wal", "archive", id); x.code != 0 || !strings.Contains(x.output, "archived "+id) {
		t.Fatalf("archive: exit %d\n%s", x.code, x.output)
	}
	if _, err := os.Stat(filepath.Join(sessions, id, walFile)); err == nil {
		t.Fatal("the archived log is still live")
	}
	if x := w.axon(nil, "sessions"); x.code != 0 || !strings.Contains(x.output, "finished: completed") {
		t.Fatalf("axon sessions on an archived session: exit %d\n%s", x.code, x.output)
	}
	again := []string{"run", "--session", crashKey.Session, "--project-root", crashKey.ProjectRoot, "--harness", crashKey.Harness,
		"--idempotency-key", "k2", "--tools", "notes", "take more notes"}
	if x := w.axon(nil, again...); x.code != 0 {
		t.Fatalf("run on the archived session: exit %d\n%s", x.code, x.output)
	}
	if x := w.axon(nil, "wal", "verify"); x.code != 0 || !strings.Contains(x.output, "1 live, 0 archived") {
		t.Fatalf("verify after the restore: exit %d\n%s", x.code, x.output)
	}
	list, err := List(sessions)
	if err != nil || len(list) != 1 || list[0].Error != "" {
		t.Fatalf("sessions: %+v, %v", list, err)
	}
	if runs := list[0].Runs; len(runs) != 2 || runs[0].Reason != EndCompleted || runs[1].Reason != EndCompleted || runs[1].IdempotencyKey != "k2" {
		t.Errorf("runs after the restore: %+v, want the archived run and the new one, both completed", runs)
	}
}
