package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/host/walarchive"
	"github.com/axonhq/axon/sdk"
)

// archiveWorld is a state directory (<dir>/sessions beside
// <dir>/wal-archive) with sessions whose runs finished.
type archiveWorld struct {
	t           *testing.T
	state       string
	sessions    string
	model       *model
	keys        []Key
	transcripts map[string][]Event // by session id, as written
}

func keyN(i int) Key {
	return Key{ProjectRoot: "/tmp/project", Harness: "test", Session: fmt.Sprintf("s%d", i)}
}

// newArchiveWorld runs one finished run in each of n sessions and closes
// them (the manager shut down, every lease free).
func newArchiveWorld(t *testing.T, n int) *archiveWorld {
	t.Helper()
	state := t.TempDir()
	w := &archiveWorld{t: t, state: state, sessions: filepath.Join(state, "sessions"), transcripts: map[string][]Event{}}
	w.model = &model{script: func(int, *sdk.Request) (answer, error) { return answer{text: "done"}, nil }}
	m := w.manager()
	for i := range n {
		k := keyN(i)
		w.keys = append(w.keys, k)
		adm, err := m.Send(context.Background(), k, Params{Prompt: fmt.Sprintf("prompt %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		waitRun(t, m, adm)
	}
	for _, k := range w.keys {
		w.transcripts[k.ID()] = transcriptOf(t, m, k.ID())
	}
	if err := m.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *archiveWorld) manager() *Manager {
	w.t.Helper()
	m, err := New(Options{Dir: w.sessions, Chains: oneHop(w.model), IdleClose: time.Hour, LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { m.Shutdown(context.Background()) })
	return m
}

func waitRun(t *testing.T, m *Manager, adm Admitted) {
	t.Helper()
	err := m.Follow(context.Background(), adm.SessionID, adm.After, FollowOptions{Run: adm.RunID}, func(Item) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
}

func transcriptOf(t *testing.T, m *Manager, id string) []Event {
	t.Helper()
	p, err := m.Transcript(context.Background(), id, After(0), maxPage)
	if err != nil {
		t.Fatalf("transcript of %s: %v", id, err)
	}
	return p.Events
}

func (w *archiveWorld) archive(opts ArchiveOptions) ArchiveResult {
	w.t.Helper()
	res, err := Archive(context.Background(), w.sessions, opts)
	if err != nil {
		w.t.Fatalf("Archive: %v", err)
	}
	return res
}

// checkResolved asserts what every kill test asserts after recovery: every
// session resolves to one log, live or archived, and reads back its
// transcript as written; with clean, no live session still has an archived
// copy that is not superseded, and every container verifies.
func (w *archiveWorld) checkResolved(clean bool) {
	w.t.Helper()
	places, err := Places(w.sessions)
	if err != nil {
		w.t.Fatal(err)
	}
	if len(places) != len(w.keys) {
		w.t.Fatalf("%d sessions resolved, want %d", len(places), len(w.keys))
	}
	for _, pl := range places {
		if pl.Err != nil {
			w.t.Errorf("session %s: %v", pl.Session, pl.Err)
		}
		if clean && len(pl.Pending) > 0 {
			w.t.Errorf("session %s live and archived (not superseded) in %v after cleanup", pl.Session, pl.Pending)
		}
	}
	m := w.manager()
	for id, want := range w.transcripts {
		if diff := cmp.Diff(want, transcriptOf(w.t, m, id)); diff != "" {
			w.t.Errorf("transcript of %s after archiving (-written +read):\n%s", id, diff)
		}
	}
	if err := m.Shutdown(context.Background()); err != nil {
		w.t.Fatal(err)
	}
	cs, err := Containers(w.sessions)
	if err != nil {
		w.t.Fatal(err)
	}
	for _, c := range cs {
		if rep := walarchive.Verify(c); !rep.OK() {
			w.t.Errorf("container %s does not verify: %+v", c, rep)
		}
	}
}

func (w *archiveWorld) live(id string) bool {
	_, err := os.Stat(filepath.Join(w.sessions, id, walFile))
	return err == nil
}

// Archived sessions are listed and read from the archive, without being
// restored; a new prompt restores the log and continues it.
func TestArchivedSessionsReadAndResume(t *testing.T) {
	t.Parallel()
	w := newArchiveWorld(t, 3)
	before, err := List(w.sessions)
	if err != nil {
		t.Fatal(err)
	}
	res := w.archive(ArchiveOptions{})
	if len(res.Archived) != 3 || len(res.Containers) != 1 || len(res.Skipped) != 0 {
		t.Fatalf("archive pass: %+v", res)
	}
	for _, k := range w.keys {
		if w.live(k.ID()) {
			t.Errorf("session %s still has a live log", k.ID())
		}
	}
	after, err := List(w.sessions)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("axon sessions after archiving (-before +after):\n%s", diff)
	}
	w.checkResolved(true)

	m := w.manager()
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(m.Sessions()); got != 3 {
		t.Errorf("Sessions lists %d, want 3", got)
	}
	for _, k := range w.keys {
		if w.live(k.ID()) {
			t.Fatalf("reading session %s restored its log", k.ID())
		}
	}
	// The idempotent resend of an archived run answers from the archive.
	k := w.keys[1]
	id := k.ID()
	prev := w.transcripts[id]
	old, err := m.Send(context.Background(), k, Params{Prompt: "prompt 1", IdempotencyKey: prev[0].IdempotencyKey})
	if err != nil || !old.Existing {
		t.Fatalf("resend of the archived run: %+v, %v", old, err)
	}
	adm, err := m.Send(context.Background(), k, Params{Prompt: "once more"})
	if err != nil {
		t.Fatalf("send to an archived session: %v", err)
	}
	waitRun(t, m, adm)
	if !w.live(id) {
		t.Fatal("a new run did not restore the session's log")
	}
	got := transcriptOf(t, m, id)
	if diff := cmp.Diff(prev, got[:len(prev)]); diff != "" {
		t.Errorf("the restored log does not continue the archived one (-archived +restored):\n%s", diff)
	}
	if last := got[len(got)-1]; last.Type != EvRunFinished || last.RunID != adm.RunID || last.Reason != string(EndCompleted) {
		t.Errorf("last event %+v, want the new run completed", last)
	}
	w.transcripts[id] = got
	m.Shutdown(context.Background())

	cur, _, err := (&archiveIndex{}).copies(archiveDir(w.sessions), id)
	if err != nil || len(cur) != 1 || !cur[0].superseded {
		t.Fatalf("the archived copy of the restored session: %+v, %v; want one, superseded", cur, err)
	}
	w.checkResolved(true)
	// The next pass archives the continued log again, into a new container.
	var first walarchive.Entry
	for _, e := range res.Archived {
		if e.Session == id {
			first = e
		}
	}
	res = w.archive(ArchiveOptions{Sessions: []string{id}})
	if len(res.Archived) != 1 || len(res.Containers) != 1 || res.Archived[0].Lineage != first.Lineage || res.Archived[0].Records <= first.Records {
		t.Fatalf("second pass: %+v; want the continued log of lineage %s, more than %d records", res, first.Lineage, first.Records)
	}
	w.checkResolved(true)
}

func TestArchiveEligibility(t *testing.T) {
	t.Parallel()
	w := newArchiveWorld(t, 4)
	old, recent, held, open := w.keys[0].ID(), w.keys[1].ID(), w.keys[2].ID(), w.keys[3].ID()
	now := time.Now()
	for _, id := range []string{old, held, open} {
		at := now.Add(-40 * 24 * time.Hour)
		if err := os.Chtimes(filepath.Join(w.sessions, id, walFile), at, at); err != nil {
			t.Fatal(err)
		}
	}
	m := w.manager()
	commitOpenRun(t, m, w.keys[3], "run_open")
	if err := m.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	at := now.Add(-40 * 24 * time.Hour) // the open run was written now; make its age no excuse
	os.Chtimes(filepath.Join(w.sessions, open, walFile), at, at)
	holder := w.manager()
	if _, err := holder.Session(held); err != nil { // opened: its lease is held for IdleClose
		t.Fatal(err)
	}

	res := w.archive(ArchiveOptions{OlderThan: 30 * 24 * time.Hour})
	if len(res.Archived) != 1 || res.Archived[0].Session != old {
		t.Fatalf("archived %+v, want only %s", res.Archived, old)
	}
	reasons := map[string]ArchiveSkip{}
	for _, s := range res.Skipped {
		reasons[s.Session] = s
	}
	for id, want := range map[string]string{recent: "less than 720h0m0s ago", held: "in use", open: "open run"} {
		if s := reasons[id]; !strings.Contains(s.Reason, want) {
			t.Errorf("session %s kept for %q, want a reason saying %q", id, s.Reason, want)
		}
	}
	if !reasons[recent].Recent || reasons[held].Recent {
		t.Errorf("only the recent session is kept for its age: %+v", reasons)
	}
	if !strings.Contains(reasons[held].Reason, fmt.Sprint(os.Getpid())) {
		t.Errorf("the held session's reason %q does not name the holder", reasons[held].Reason)
	}
	holder.Shutdown(context.Background())
	// Named sessions are archived whatever their age, unless they are open.
	res = w.archive(ArchiveOptions{Sessions: []string{recent, open, "nosuchsession"}})
	if len(res.Archived) != 1 || res.Archived[0].Session != recent {
		t.Fatalf("archived %+v, want %s", res.Archived, recent)
	}
	if len(res.Skipped) != 2 {
		t.Errorf("skipped %+v, want the open session and the unknown one", res.Skipped)
	}
}

// A damaged archived log is never restored: the new prompt is refused,
// naming the container, the session and both digests, and nothing is
// written.
func TestRestoreRefusesADigestMismatch(t *testing.T) {
	t.Parallel()
	w := newArchiveWorld(t, 1)
	id := w.keys[0].ID()
	res := w.archive(ArchiveOptions{})
	path := res.Containers[0]
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entry := res.Archived[0]
	logAt := len(b) - 1024 - int((entry.Size+511)/512*512) // the last (only) log's data, before the tar's end blocks
	b[logAt+int(entry.Size)-3] ^= 0x20
	os.Chmod(path, 0o600)
	if err := os.WriteFile(path, b, 0o400); err != nil {
		t.Fatal(err)
	}
	m := w.manager()
	_, err = m.Send(context.Background(), w.keys[0], Params{Prompt: "again"})
	var de *walarchive.DigestError
	if !errors.As(err, &de) {
		t.Fatalf("send to a session whose archived log is damaged: %v, want a DigestError", err)
	}
	if status, typ := errorStatus(err); status != 500 || typ != "archive_damaged" {
		t.Errorf("over HTTP: %d %s, want 500 archive_damaged", status, typ)
	}
	msg := err.Error()
	for _, want := range []string{path, id, entry.SHA256, de.Got, "digest mismatch"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal %q does not name %q", msg, want)
		}
	}
	if w.live(id) {
		t.Error("a damaged archived log was restored")
	}
	if _, err := os.Stat(filepath.Join(w.sessions, id, restoreTmp)); err == nil {
		t.Error("the refused restore left its temporary file")
	}
	if sup, _ := isSuperseded(path, id); sup {
		t.Error("the damaged copy was marked superseded")
	}
}
