package cli

import (
	"regexp"
	"strings"
	"testing"
)

// TestRunCancelEndsAPausedRun: a run every provider refused pauses (exit
// 2); --cancel ends it cancelled, which sessions and --resume then see;
// a second --cancel, or one on a session that does not exist, says there
// is nothing to cancel, naming the session.
func TestRunCancelEndsAPausedRun(t *testing.T) {
	t.Parallel()
	cfg := writeConfig(t, chainConfig("http://"+closedPort(t)))
	root := t.TempDir()
	axon := func(args ...string) (int, string, string) {
		t.Helper()
		return run(t, nil, append([]string{"--config", cfg}, args...)...)
	}
	session := []string{"run", "--project-root", root, "--session", "s1"}

	code, _, errOut := axon(append(session, "hi")...)
	paused := regexp.MustCompile(`\[run (\S+) paused: `).FindStringSubmatch(errOut)
	if code != exitRunPaused || paused == nil || !strings.Contains(errOut, "axon run --session s1 --cancel") {
		t.Fatalf("run with every provider down: exit %d, want %d (paused) and how to cancel; stderr:\n%s", code, exitRunPaused, errOut)
	}
	runID := paused[1]

	code, _, errOut = axon(append(session, "--cancel")...)
	if code != 0 {
		t.Fatalf("--cancel: exit %d, stderr:\n%s", code, errOut)
	}
	for _, want := range []string{"[cancelling run " + runID + " of session s1 (chain default, paused: model_unavailable)]", "[run finished: cancelled]"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("--cancel does not print %q; stderr:\n%s", want, errOut)
		}
	}

	code, out, errOut := axon("sessions")
	if code != 0 || !regexp.MustCompile(`s1\s.*`+regexp.QuoteMeta(runID)+`\s+finished: cancelled`).MatchString(out) {
		t.Errorf("sessions after --cancel: exit %d, want the run finished: cancelled; stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, _, errOut = axon(append(session, "--resume")...)
	if code != 1 || !strings.Contains(errOut, `axon: session "s1" has no paused run to resume`) {
		t.Errorf("--resume after --cancel: exit %d, stderr:\n%s", code, errOut)
	}

	code, _, errOut = axon(append(session, "--cancel")...)
	want := `axon: session "s1" has no paused or running run to cancel: its last run ` + runID + " is finished: cancelled\n"
	if code != 1 || errOut != want {
		t.Errorf("--cancel with nothing to cancel: exit %d, stderr %q, want %q", code, errOut, want)
	}
	code, _, errOut = axon("run", "--project-root", root, "--session", "nope", "--cancel")
	want = `axon: session "nope" has no paused or running run to cancel: there is no such session of project ` + root + ", harness cli\n"
	if code != 1 || errOut != want {
		t.Errorf("--cancel of a session that does not exist: exit %d, stderr %q, want %q", code, errOut, want)
	}
}
