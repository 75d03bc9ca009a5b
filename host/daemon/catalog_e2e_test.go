package daemon

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// catalogHCL is one openai-plugin provider (a real plugin process) whose
// block gives the catalog its facts: model, window and prices.
func catalogHCL(u *upstream, model string, window int, in, out float64) string {
	return fmt.Sprintf(`
provider "main" {
  plugin         = "openai"
  base_url       = "%s/v1"
  model          = %q
  context_window = %d
  pricing {
    input_per_mtok  = %g
    output_per_mtok = %g
  }
}
chain "default" {
  providers = [provider.main]
  retry { attempts = 1 }
}
`, u.URL, model, window, in, out)
}

// pausedRun starts a session run on r whose model step fails (the
// upstream is down), so the run pauses; it returns the session's id.
func pausedRun(t *testing.T, r *rig, session string) string {
	t.Helper()
	status, _, body := r.do("POST", "/v1/sessions", fmt.Sprintf(`{"session":%q,"prompt":"hi"}`, session), true)
	if status != http.StatusCreated {
		t.Fatalf("session %s: %d %s", session, status, body)
	}
	var adm struct {
		SessionID string `json:"session_id"`
		RunID     string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(body), &adm); err != nil {
		t.Fatal(err)
	}
	if status, _, body := r.do("GET", "/v1/sessions/"+adm.SessionID+"/events?display=false&run="+adm.RunID, "", true); status != 200 || !strings.Contains(body, "event: end") {
		t.Fatalf("session events: %d %s", status, body)
	}
	if run := onlyRun(t, r, adm.SessionID); run.Status != "paused" || run.PauseReason != "model_unavailable" {
		t.Fatalf("run with the upstream down: %+v, want paused model_unavailable", run)
	}
	return adm.SessionID
}

type runView struct {
	Status      string   `json:"status"`
	PauseReason string   `json:"pause_reason"`
	CostUSD     *float64 `json:"cost_usd"`
	Tokens      int64    `json:"tokens"`
}

func onlyRun(t *testing.T, r *rig, session string) runView {
	t.Helper()
	status, _, body := r.do("GET", "/v1/sessions/"+session+"/runs", "", true)
	var v struct{ Runs []runView }
	if status != 200 || json.Unmarshal([]byte(body), &v) != nil || len(v.Runs) != 1 {
		t.Fatalf("runs of %s: %d %s", session, status, body)
	}
	return v.Runs[0]
}

// modelFacts is the catalog part of a /v1/models entry.
type modelFactsJSON struct {
	ID            string `json:"id"`
	Provider      string `json:"provider"`
	Upstream      string `json:"upstream_model"`
	ContextWindow int64  `json:"context_window"`
	Pricing       *struct {
		Input  *float64 `json:"input_per_mtok"`
		Output *float64 `json:"output_per_mtok"`
	} `json:"pricing"`
	Sources map[string]string `json:"sources"`
}

// pinFacts reads the /v1/models entry of provider's pin through a real
// HTTP client.
func pinFacts(t *testing.T, r *rig, provider string) modelFactsJSON {
	t.Helper()
	status, _, body := r.do("GET", "/v1/models", "", true)
	var list struct{ Data []modelFactsJSON }
	if status != 200 || json.Unmarshal([]byte(body), &list) != nil {
		t.Fatalf("/v1/models: %d %s", status, body)
	}
	for _, m := range list.Data {
		if m.Provider == provider {
			return m
		}
	}
	t.Fatalf("/v1/models has no pin of %s:\n%s", provider, body)
	return modelFactsJSON{}
}

// TestCatalogFrozenAcrossARestart: through real plugin processes and
// real restarts of axon on one state directory, a run keeps the catalog
// entry it was admitted with after the catalog changed (it is priced at
// the frozen prices, not the new ones), /v1/models shows the new
// catalog, and a run whose model the configuration no longer serves is
// refused on resume, naming the model and why, and stays paused.
func TestCatalogFrozenAcrossARestart(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	down := newUpstream(t, status(503, nil, `{"error":{"message":"down","type":"server_error"}}`))

	before := newRigIn(t, state, "", catalogHCL(down, "m-1", 1000, 1, 2), frontDoorToken, Options{})
	if f := pinFacts(t, before, "main"); f.Upstream != "m-1" || f.ContextWindow != 1000 || f.Pricing == nil || *f.Pricing.Input != 1 || *f.Pricing.Output != 2 || f.Sources["price"] != "config" {
		t.Fatalf("catalog before: %+v", f)
	}
	kept := pausedRun(t, before, "kept")
	gone := pausedRun(t, before, "gone")
	before.front.Close()

	// Restarted with the same model at new prices and a new window, and
	// the upstream answering.
	up := newUpstream(t, openaiText("m-1", "back", "again"))
	after := newRigIn(t, state, "", catalogHCL(up, "m-1", 2000, 10, 20), frontDoorToken, Options{})
	if f := pinFacts(t, after, "main"); f.ContextWindow != 2000 || *f.Pricing.Input != 10 || *f.Pricing.Output != 20 {
		t.Fatalf("catalog after the change: %+v", f)
	}
	status, _, body := after.do("POST", "/v1/sessions/"+kept+"/resume", "", true)
	if status != http.StatusAccepted {
		t.Fatalf("resume: %d %s", status, body)
	}
	run := runEnded(t, after, kept)
	// 7 input and 2 output tokens (openaiText) at the frozen $1 and $2
	// per million; the new prices would make it ten times that.
	if want := (7*1.0 + 2*2.0) / 1e6; run.Status != "finished" || run.CostUSD == nil || *run.CostUSD != want {
		t.Fatalf("resumed run: %+v (cost %v), want finished at the frozen prices, %g", run, deref(run.CostUSD), want)
	}
	after.front.Close()

	// Restarted once more, the block now serving another model.
	other := newRigIn(t, state, "", catalogHCL(up, "m-2", 2000, 10, 20), frontDoorToken, Options{})
	status, _, body = other.do("POST", "/v1/sessions/"+gone+"/resume", "", true)
	if status != http.StatusConflict {
		t.Fatalf("resume of a run whose model is no longer served: %d %s, want 409", status, body)
	}
	for _, want := range []string{`"model_unservable"`, "m-1", `provider block \"main\" now serves model \"m-2\"`} {
		if !strings.Contains(body, want) {
			t.Errorf("refusal %s does not say %s", body, want)
		}
	}
	if run := onlyRun(t, other, gone); run.Status != "paused" {
		t.Errorf("refused run: %+v, want still paused", run)
	}
	if n := up.count(); n != 1 {
		t.Errorf("the upstream was called %d times, want once (the kept run's step)", n)
	}
}

// runEnded waits for session's only run to leave the running state (the
// deadline is a hang guard).
func runEnded(t *testing.T, r *rig, session string) runView {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if run := onlyRun(t, r, session); run.Status != "running" || time.Now().After(deadline) {
			return run
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
