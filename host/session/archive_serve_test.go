package session

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// axon serve with axon { archive { after = "1h" } } archives, at its
// start, the session last written two hours ago and keeps the recent one;
// the archived session is listed and takes a new prompt over HTTP, which
// restores it; while the daemon holds it, `axon wal archive` keeps it,
// saying it is in use.
func TestServeArchivesOnSchedule(t *testing.T) {
	t.Parallel()
	w := newWorld(t, newUpstream(t, 1, 1))
	cfg, err := os.ReadFile(w.config)
	if err != nil {
		t.Fatal(err)
	}
	scheduled := strings.Replace(string(cfg), `listen     = "127.0.0.1:0"`, "listen     = \"127.0.0.1:0\"\n  archive { after = \"1h\" }", 1)
	if err := os.WriteFile(w.config, []byte(scheduled), 0o600); err != nil {
		t.Fatal(err)
	}
	recentArgs := []string{"run", "--session", "recent", "--project-root", crashKey.ProjectRoot, "--harness", crashKey.Harness, "--tools", "notes", "take notes"}
	for _, args := range [][]string{runArgs, recentArgs} {
		if x := w.axon(nil, args...); x.code != 0 {
			t.Fatalf("axon %v: exit %d\n%s", args, x.code, x.output)
		}
	}
	sessions := filepath.Join(w.state, "sessions")
	old := crashKey.ID()
	recent := Key{ProjectRoot: crashKey.ProjectRoot, Harness: crashKey.Harness, Session: "recent"}.ID()
	oldWAL := filepath.Join(sessions, old, walFile)
	at := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(oldWAL, at, at); err != nil {
		t.Fatal(err)
	}

	srv := w.serve()
	deadline := time.Now().Add(30 * time.Second) // a hang guard: the pass runs once at start
	for !strings.Contains(srv.logs.String(), "archived old session logs") {
		if time.Now().After(deadline) {
			t.Fatalf("no archive pass logged:\n%s", srv.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(oldWAL); err == nil {
		t.Fatal("the old session's log is still live after the pass")
	}
	if _, err := os.Stat(filepath.Join(sessions, recent, walFile)); err != nil {
		t.Fatalf("the recent session's log was archived: %v", err)
	}
	resp, err := http.Get(srv.url + "/v1/sessions")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Sessions []SessionInfo }
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Sessions) != 2 {
		t.Fatalf("listed %d sessions, want both", len(list.Sessions))
	}
	for _, s := range list.Sessions {
		if s.Error != "" || len(s.Runs) != 1 || s.Runs[0].Reason != EndCompleted {
			t.Errorf("session %s listed as %+v", s.ID, s)
		}
	}
	status, body := srv.post("/v1/sessions", fmt.Sprintf(`{"project_root":%q,"harness":%q,"session":%q,"idempotency_key":"k2","tools":["notes"],"prompt":"more"}`,
		crashKey.ProjectRoot, crashKey.Harness, crashKey.Session))
	if status != http.StatusCreated {
		t.Fatalf("send to the archived session: %d %s", status, body)
	}
	var adm Admitted
	json.Unmarshal([]byte(body), &adm)
	if frames, ended := srv.events("/v1/sessions/"+adm.SessionID+"/events?display=false&run="+adm.RunID+"&after="+adm.After.String(), ""); !ended || len(frames) == 0 {
		t.Fatalf("the run on the restored session did not end: %d frames", len(frames))
	}
	if _, err := os.Stat(oldWAL); err != nil {
		t.Fatalf("the new run did not restore the log: %v", err)
	}
	x := w.axon(nil, "wal", "archive", old)
	if !strings.Contains(x.output, "kept "+old+": in use") {
		t.Errorf("axon wal archive of a session the daemon holds: exit %d\n%s", x.code, x.output)
	}
	if x := srv.stop(); x.code != 0 {
		t.Fatalf("SIGTERM: exit %d\n%s", x.code, x.output)
	}
	if x := w.axon(nil, "wal", "verify"); x.code != 0 {
		t.Fatalf("verify: exit %d\n%s", x.code, x.output)
	}
}
