package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/wal"
	"github.com/axonhq/axon/sdk"
)

// fixedCatalog answers with its entries; a provider it lacks is not
// configured, and an entry whose Model is "!why" is unservable for why.
type fixedCatalog map[string]ModelFacts

func (c fixedCatalog) Model(_ context.Context, provider string) (ModelFacts, error) {
	f, ok := c[provider]
	switch {
	case !ok:
		return ModelFacts{}, fmt.Errorf("provider block %q is not configured", provider)
	case strings.HasPrefix(f.Model, "!"):
		return ModelFacts{}, errors.New(f.Model[1:])
	}
	return f, nil
}

func withCatalog(c Catalog) func(*Options) { return func(o *Options) { o.Catalog = c } }
func withChains(c Chains) func(*Options)   { return func(o *Options) { o.Chains = c } }

// hopChains serves chain name of hops (provider name, model) over g.
func hopChains(g chain.Generator, name string, hops ...[2]string) chains {
	ch := &chain.Chain{Name: name, Policy: chain.Policy{Attempts: 1}}
	for _, h := range hops {
		ch.Hops = append(ch.Hops, chain.Hop{Name: h[0], Provider: g, Model: h[1]})
	}
	return chains{ch}
}

// pausingScript asks for the clock in step 1, then fails (the run pauses)
// while *down, else answers.
func pausingScript(down *bool) func(int, *sdk.Request) (answer, error) {
	return func(step int, _ *sdk.Request) (answer, error) {
		if step == 0 {
			return answer{text: "step 1 ", calls: []sdk.ToolCall{call("t1", "now", `{}`)}, usage: usage(1000, 500)}, nil
		}
		if *down {
			return answer{}, &sdk.Error{Class: sdk.ClassTransient, Code: "overloaded", Message: "try later", Status: 529}
		}
		return answer{text: "it is noon", usage: usage(1000, 500)}, nil
	}
}

var admittedFacts = ModelFacts{Provider: "fake", Model: "fake-1", ContextWindow: 1000, MaxOutputTokens: 100,
	Price: Price{InputPerMTok: new(1.0), OutputPerMTok: new(2.0)}, Tools: new(true), Prefill: new(true)}

// TestFrozenCatalogAcrossRestart: a run admitted with a catalog entry
// keeps it after a restart under a catalog that changed (prices a hundred
// times higher, another window, no prefill): its steps are priced at the
// frozen prices, so its cost budget still holds, and its chain has the
// frozen window and prefill.
func TestFrozenCatalogAcrossRestart(t *testing.T) {
	t.Parallel()
	down := true
	clock := map[string]Tool{"clock": newTool(sdk.SideEffectNone, "now")}
	r := newRig(t, pausingScript(&down), clock, withCatalog(fixedCatalog{"fake": admittedFacts}))
	adm := r.send(Params{Prompt: "what time is it?", Tools: []string{"clock"}, Budget: Budget{CostUSD: new(0.005)}})
	evs := r.wait(adm)
	if diff := cmp.Diff([]ModelFacts{admittedFacts}, evs[0].Models); diff != "" {
		t.Errorf("run_started models (-want +got):\n%s", diff)
	}
	if p := evs[len(evs)-1]; p.Type != EvRunPaused || p.Reason != string(PauseModelUnavailable) {
		t.Fatalf("last event %+v, want run_paused", p)
	}
	r.m.Shutdown(context.Background())

	changed := fixedCatalog{"fake": {Provider: "fake", Model: "fake-1", ContextWindow: 999_999,
		Price: Price{InputPerMTok: new(100.0), OutputPerMTok: new(200.0)}, Prefill: new(false)}}
	down = false
	r.m = r.start(withCatalog(changed))
	if err := r.m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	info, err := r.m.Session(adm.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	run := r.m.mustRun(t, adm.SessionID, adm.RunID)
	ch, err := r.m.runChain(context.Background(), adm.RunID, run.start)
	if err != nil {
		t.Fatal(err)
	}
	if h := ch.Hops[0]; len(ch.Hops) != 1 || h.ContextWindow != 1000 || !h.Prefill || h.PrefillFunc != nil {
		t.Errorf("the resumed run's hop %+v, want the frozen window 1000 and prefill", h)
	}
	if _, err := r.m.Resume(context.Background(), adm.SessionID, ""); err != nil {
		t.Fatal(err)
	}
	evs = r.wait(Admitted{SessionID: adm.SessionID, RunID: adm.RunID, After: After(info.AppliedSeq)})
	if end := evs[len(evs)-1]; end.Type != EvRunFinished || end.Reason != string(EndCompleted) {
		t.Fatalf("after resume: %+v, want completed (at the new prices the budget would have stopped it)", end)
	}
	info, _ = r.m.Session(adm.SessionID)
	for _, u := range info.Usage {
		if u.CostUSD == nil || *u.CostUSD != 0.002 {
			t.Errorf("step %d cost %v, want 0.002 at the frozen prices", u.Step, fmtCost(u.CostUSD))
		}
	}
}

// mustRun is run id of session id, read on its actor.
func (m *Manager) mustRun(t *testing.T, id, runID string) runState {
	t.Helper()
	a, err := m.acquire(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.release(a)
	var r runState
	if err := a.exec(func() error {
		got := a.st.byID[runID]
		if got == nil {
			return fmt.Errorf("no run %s", runID)
		}
		r = *got
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestUnservableModelRefusedOnResume: a paused run whose frozen model is
// no longer served is refused on resume with an error naming the model,
// the provider and why; it stays paused, nothing is written, the model is
// not called; once the configuration serves the model again it resumes.
func TestUnservableModelRefusedOnResume(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		mod  func(g chain.Generator) []func(*Options)
		why  string
	}{
		{"provider block left the chain", func(g chain.Generator) []func(*Options) {
			return []func(*Options){withChains(hopChains(g, "default", [2]string{"other", "fake-1"}))}
		}, `provider block "fake" is no longer in chain "default"`},
		{"chain gone", func(g chain.Generator) []func(*Options) {
			return []func(*Options){withChains(hopChains(g, "renamed", [2]string{"fake", "fake-1"}))}
		}, `chain "default" is not configured`},
		{"block serves another model", func(g chain.Generator) []func(*Options) {
			return []func(*Options){withChains(hopChains(g, "default", [2]string{"fake", "fake-2"}))}
		}, `provider block "fake" now serves model "fake-2"`},
		{"catalog: plugin no longer lists it", func(chain.Generator) []func(*Options) {
			return []func(*Options){withCatalog(fixedCatalog{"fake": {Model: `!its plugin (fake) no longer lists model "fake-1"; it lists "fake-3"`}})}
		}, `its plugin (fake) no longer lists model "fake-1"`},
		{"catalog: block gone from the configuration", func(chain.Generator) []func(*Options) {
			return []func(*Options){withCatalog(fixedCatalog{})}
		}, `provider block "fake" is not configured`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			down := true
			clock := map[string]Tool{"clock": newTool(sdk.SideEffectNone, "now")}
			r := newRig(t, pausingScript(&down), clock, withCatalog(fixedCatalog{"fake": admittedFacts}))
			adm := r.send(Params{Prompt: "what time is it?", Tools: []string{"clock"}})
			r.wait(adm)
			r.m.Shutdown(context.Background())
			down = false

			r.m = r.start(c.mod(r.model)...)
			before, err := r.m.Session(adm.SessionID)
			if err != nil {
				t.Fatal(err)
			}
			calls := len(r.model.requests())
			_, err = r.m.Resume(context.Background(), adm.SessionID, "")
			var me *ModelError
			if !errors.Is(err, ErrModelUnservable) || !errors.As(err, &me) {
				t.Fatalf("resume: %v, want a ModelError", err)
			}
			for _, want := range []string{"run " + adm.RunID, "model fake-1 of provider fake (chain default)", c.why, "not moved to another model"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if status, typ := errorStatus(err); status != 409 || typ != "model_unservable" {
				t.Errorf("HTTP %d %s, want 409 model_unservable", status, typ)
			}
			after, _ := r.m.Session(adm.SessionID)
			if after.AppliedSeq != before.AppliedSeq || after.Runs[0].Status != StatusPaused {
				t.Errorf("refused resume wrote (seq %d → %d) or changed the run (%s)", before.AppliedSeq, after.AppliedSeq, after.Runs[0].Status)
			}
			if n := len(r.model.requests()); n != calls {
				t.Errorf("the model was called %d times on a refused resume", n-calls)
			}
			r.m.Shutdown(context.Background())

			r.m = r.start(withCatalog(fixedCatalog{"fake": admittedFacts}))
			if _, err := r.m.Resume(context.Background(), adm.SessionID, ""); err != nil {
				t.Fatalf("resume once the model is served again: %v", err)
			}
			evs := r.wait(Admitted{SessionID: adm.SessionID, RunID: adm.RunID, After: After(after.AppliedSeq)})
			if end := evs[len(evs)-1]; end.Reason != string(EndCompleted) {
				t.Errorf("after the fix: %+v, want completed", end)
			}
		})
	}
}

// TestCrashedRunPausesWhenItsModelIsGone: a run a crash left open, whose
// model the restarted configuration no longer serves, is paused at Start
// (model_unservable, saying why) before any model call, never run on
// another model.
func TestCrashedRunPausesWhenItsModelIsGone(t *testing.T) {
	t.Parallel()
	f := admittedFacts
	started := Record{Type: RecRunStarted, RunID: "run_1", RunStarted: &RunStarted{IdempotencyKey: "k", Prompt: "p", Chain: "default", MaxTurns: 5, Models: []ModelFacts{f}}}
	r := &rig{t: t, dir: t.TempDir(), model: &model{script: toolSteps("done")}}
	id := crashed(t, r.dir, started)
	r.m = r.start(withChains(hopChains(r.model, "default", [2]string{"glm", "glm-4.6"})))
	if err := r.m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	evs := r.wait(Admitted{SessionID: id, RunID: "run_1", After: After(0)})
	p := evs[len(evs)-1]
	if p.Type != EvRunPaused || p.Reason != string(PauseModelUnservable) || p.Error == nil || p.Error.Code != "model_unservable" ||
		!strings.Contains(p.Error.Message, `model fake-1 of provider fake (chain default), which is no longer servable: provider block "fake" is no longer in chain "default"`) {
		t.Fatalf("last event %+v, want run_paused model_unservable naming the model", p)
	}
	if n := len(r.model.requests()); n != 0 {
		t.Errorf("the model was called %d times", n)
	}
}

// TestAdmissionRefusesUnservableModel: a chain whose provider's model its
// plugin does not list is refused at admission, and nothing is written.
func TestAdmissionRefusesUnservableModel(t *testing.T) {
	t.Parallel()
	r := newRig(t, toolSteps("done"), nil, withCatalog(fixedCatalog{"fake": {Model: `!its plugin (fake) no longer lists model "fake-1"; it lists "fake-3"`}}))
	_, err := r.m.Send(context.Background(), testKey, Params{Prompt: "hi"})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `provider "fake" of chain "default": its plugin (fake) no longer lists model "fake-1"`) {
		t.Fatalf("send: %v, want invalid chain naming the model", err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, testKey.ID())); !os.IsNotExist(err) {
		t.Errorf("a refused admission created the session: %v", err)
	}
}

// TestOldRunStartedResumesAsBefore: a log written before the catalog
// (testdata/prices-run.jsonl: RunStarted with prices and no models, as
// the previous axon wrote it) resumes exactly as it did: on the chain as
// configured now (its block's model changed, no check), its steps priced
// at its own prices, whatever the catalog now says.
func TestOldRunStartedResumesAsBefore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeRawSession(t, dir, testKey, "testdata/prices-run.jsonl")
	clock := newTool(sdk.SideEffectNone, "now")
	r := &rig{t: t, dir: dir, tools: map[string]Tool{"clock": clock}, model: &model{script: func(int, *sdk.Request) (answer, error) {
		return answer{text: "it is noon", usage: usage(1000, 500)}, nil
	}}}
	r.m = r.start(withChains(hopChains(r.model, "default", [2]string{"fake", "fake-2"})),
		withCatalog(fixedCatalog{"fake": {Provider: "fake", Model: "fake-2", Price: Price{InputPerMTok: new(100.0), OutputPerMTok: new(200.0)}}}))
	if err := r.m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	evs := r.wait(Admitted{SessionID: testKey.ID(), RunID: "run_old", After: After(0)})
	if end := evs[len(evs)-1]; end.Type != EvRunFinished || end.Reason != string(EndCompleted) {
		t.Fatalf("last event %+v, want completed", end)
	}
	if evs[0].Models != nil {
		t.Errorf("an old run_started shows models %+v", evs[0].Models)
	}
	if n := len(clock.invocations()); n != 1 {
		t.Errorf("clock called %d times, want once", n)
	}
	info, err := r.m.Session(testKey.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Usage) != 2 {
		t.Fatalf("usage facts %+v, want two", info.Usage)
	}
	for _, u := range info.Usage {
		if u.CostUSD == nil || *u.CostUSD != 0.002 {
			t.Errorf("step %d cost %v, want 0.002 at the run's own prices", u.Step, fmtCost(u.CostUSD))
		}
	}
}

// writeRawSession writes session key of dir with the WAL payloads of
// fixture, one JSON record a line, byte for byte.
func writeRawSession(t *testing.T, dir string, key Key, fixture string) {
	t.Helper()
	f, err := os.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sdir := filepath.Join(dir, key.ID())
	if err := makeDirs(dir, sdir); err != nil {
		t.Fatal(err)
	}
	if err := writeMeta(sdir, meta{Key: key, CreatedAt: time.Unix(0, 0).UTC()}); err != nil {
		t.Fatal(err)
	}
	w, err := wal.Open(filepath.Join(sdir, walFile))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if _, err := w.Append(append([]byte(nil), sc.Bytes()...)); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func fmtCost(c *float64) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprint(*c)
}
