package cli

import (
	"strings"
	"testing"
)

// TestAskVerboseOnAnExhaustedChain: -v says the chain did not answer and
// prints the trail, never "answered by - (-)".
func TestAskVerboseOnAnExhaustedChain(t *testing.T) {
	t.Parallel()
	up := openaiUpstream(t, 503, `{"error":{"message":"down","type":"server_error"}}`)
	code, _, errOut := run(t, nil, "ask", "-v", "--config", writeConfig(t, chainConfig(up.URL)), "hi")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, errOut)
	}
	if strings.Contains(errOut, "answered by -") {
		t.Errorf("-v claims an answer from nobody:\n%s", errOut)
	}
	if !strings.Contains(errOut, "chain default did not answer; trail: mock#1 ") {
		t.Errorf("-v lacks the unanswered chain's trail:\n%s", errOut)
	}
}

// TestAskNamesTheConfiguredChains: an unknown --chain lists the chains
// that exist, as the front door's 404 does.
func TestAskNamesTheConfiguredChains(t *testing.T) {
	t.Parallel()
	up := openaiUpstream(t, 200, "x")
	cfg := chainConfig(up.URL) + "chain \"fast\" {\n  providers = [provider.mock]\n}\n"
	code, _, errOut := run(t, nil, "ask", "--chain", "nope", "--config", writeConfig(t, cfg), "hi")
	if code == 0 {
		t.Fatal("an unknown chain was accepted")
	}
	if !strings.Contains(errOut, `no such chain: "nope" (configured: default, fast)`) {
		t.Errorf("the error does not list the chains:\n%s", errOut)
	}
}

// TestAskQuietOutputHasNoLogLines: without -v, a failing ask prints its own
// error and hint, not the host's WARN log lines (here the egress's
// "credential unavailable" for an unset variable).
func TestAskQuietOutputHasNoLogLines(t *testing.T) {
	t.Parallel()
	up := openaiUpstream(t, 200, "x")
	cfg := strings.Replace(chainConfig(up.URL), `model    = "m"`, "model    = \"m\"\n  credential = env(\"AXON_TEST_UNSET_KEY\")", 1)
	code, out, errOut := run(t, nil, "ask", "--config", writeConfig(t, cfg), "hi")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, errOut)
	}
	if strings.Contains(errOut, "[WARN]") || strings.Contains(out, "[WARN]") {
		t.Errorf("log lines in the quiet output:\n%s", errOut)
	}
	if !strings.Contains(errOut, "AXON_TEST_UNSET_KEY") {
		t.Errorf("the error does not name the unset variable:\n%s", errOut)
	}
}
