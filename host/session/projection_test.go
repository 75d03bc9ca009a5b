package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/sdk"
)

// The projections a manager maintains as records are committed equal those
// a new manager rebuilds from the WALs alone, whatever the snapshots say.
func TestProjectionsRebuiltFromTheWAL(t *testing.T) {
	t.Parallel()
	price := Price{InputPerMTok: new(1.0), OutputPerMTok: new(2.0)}
	reported := true
	script := func(step int, req *sdk.Request) (answer, error) {
		a := answer{text: "hi"}
		if step == 0 && len(req.Tools) > 0 {
			a.calls = []sdk.ToolCall{call("c", "now", `{}`)}
		}
		if reported {
			a.usage = &sdk.Usage{InputTokens: sdk.Tokens(1000), OutputTokens: sdk.Tokens(500)}
		}
		return a, nil
	}
	withPrices := func(o *Options) { o.Catalog = fixedCatalog{"fake": {Provider: "fake", Model: "fake-1", Price: price}} }
	r := newRig(t, script, map[string]Tool{"clock": newTool(sdk.SideEffectNone, "now")}, withPrices)
	r.wait(r.send(Params{Prompt: "one", Tools: []string{"clock"}}))
	reported = false
	r.wait(r.send(Params{Prompt: "two"}))
	other := Key{Session: "other"}
	adm, err := r.m.Send(context.Background(), other, Params{Prompt: "three"})
	if err != nil {
		t.Fatal(err)
	}
	r.wait(adm)

	live := r.m.Sessions()
	liveInfo, err := r.m.Session(testKey.ID())
	if err != nil {
		t.Fatal(err)
	}
	r.m.Shutdown(context.Background())

	// Usage facts: as reported, absent when not, priced when covered.
	u := liveInfo.Usage
	if len(u) != 3 || *u[0].InputTokens != 1000 || *u[0].OutputTokens != 500 || *u[0].CostUSD != 0.002 {
		t.Fatalf("first facts %+v", u)
	}
	if u[2].InputTokens != nil || u[2].OutputTokens != nil || u[2].CostUSD != nil || u[2].Provider != "fake" || u[2].Model != "fake-1" {
		t.Errorf("unreported usage gives %+v, want absent counts and cost", u[2])
	}
	if run := liveInfo.Runs[1]; !run.TokensUnreported || run.CostUSD != nil {
		t.Errorf("second run %+v, want unreported tokens and no cost", run)
	}

	// Damage the snapshots: a stale watermark, garbage, a missing file.
	sdir := filepath.Join(r.dir, testKey.ID())
	stale := *liveInfo
	stale.AppliedSeq, stale.Runs = 2, stale.Runs[:1]
	if err := writeSnapshot(sdir, &stale); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, other.ID(), projectionFile), []byte("{garbage"), 0o600); err != nil {
		t.Fatal(err)
	}

	m := r.start(withPrices)
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(live, m.Sessions()); diff != "" {
		t.Errorf("rebuilt sessions differ (-live +rebuilt):\n%s", diff)
	}
	rebuilt, err := m.Session(testKey.ID())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(liveInfo, rebuilt); diff != "" {
		t.Errorf("rebuilt session differs (-live +rebuilt):\n%s", diff)
	}
	m.Shutdown(context.Background())
	// The listing the CLI uses agrees, from the repaired snapshots.
	listed, err := List(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(live, listed); diff != "" {
		t.Errorf("List differs (-live +listed):\n%s", diff)
	}
}

// While another process holds a session, List shows its snapshot, marked.
func TestListHeldSession(t *testing.T) {
	t.Parallel()
	r := newRig(t, toolSteps("x"), nil)
	adm := r.send(Params{Prompt: "p"})
	r.wait(adm)
	listed, err := List(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != 1 || listed[0].LastRun().RunID != adm.RunID || !listed[0].HeldElsewhere || listed[0].Stale {
		t.Errorf("listed %+v: want the finished run from the current snapshot, held elsewhere", listed)
	}
	sdir := filepath.Join(r.dir, adm.SessionID)
	snap, err := readSnapshot(sdir)
	if err != nil {
		t.Fatal(err)
	}
	snap.AppliedSeq--
	writeSnapshot(sdir, snap)
	listed, _ = List(r.dir)
	if len(listed) != 1 || !listed[0].HeldElsewhere || !listed[0].Stale {
		t.Errorf("listed %+v: want held elsewhere and stale", listed)
	}
	r.m.Shutdown(context.Background())
	listed, _ = List(r.dir)
	if len(listed) != 1 || listed[0].HeldElsewhere || listed[0].Stale || listed[0].AppliedSeq != snap.AppliedSeq+1 {
		t.Errorf("listed %+v: want the session rebuilt from its WAL", listed)
	}
}
