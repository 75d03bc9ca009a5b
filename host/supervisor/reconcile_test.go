package supervisor

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/axonhq/axon/host/internal/logbuf"
	"github.com/axonhq/axon/sdk"
)

// TestReconcileKeepsUnchangedAndRetiresTheRest: a reload keeps the process
// of a block that did not change, starts a changed or new block afresh,
// and retires a changed or removed one only once its old configuration has
// drained: until then whoever holds it still gets answers.
func TestReconcileKeepsUnchangedAndRetiresTheRest(t *testing.T) {
	t.Parallel()
	logs := &logbuf.Buffer{}
	s := newSupervisor(t, logs, Options{HealthInterval: time.Hour})
	values := func(v string) func(sdk.Info) (json.RawMessage, error) {
		return func(sdk.Info) (json.RawMessage, error) { return json.RawMessage(v), nil }
	}
	spec := func(name string, idle time.Duration, v string) Spec {
		return Spec{Name: name, Kind: sdk.KindProvider, Path: bin("echo"), IdleStop: idle, Values: values(v)}
	}
	for _, sp := range []Spec{spec("keep", 0, `{}`), spec("change", 0, `{}`), spec("drop", 0, `{}`), spec("cold", 0, `{}`)} {
		if err := s.Add(sp); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	running := map[string]*Instance{}
	for _, name := range []string{"keep", "change", "drop"} {
		in, _ := s.Instance(name)
		if _, text, err := collect(ctx, in, name); err != nil || text != name {
			t.Fatalf("%s: %q, %v", name, text, err)
		}
		running[name] = in
	}
	keptPid := running["keep"].Pid()

	drained := make(chan struct{})
	got, err := s.Reconcile([]Spec{spec("keep", 0, `{}`), spec("change", time.Hour, `{}`), spec("cold", 0, `{}`), spec("new", 0, `{}`)}, drained, nil)
	if err != nil {
		t.Fatal(err)
	}
	cold, _ := s.Instance("cold")
	want := Reconciled{Added: []string{"new"}, Replaced: []string{"change"}, Removed: []string{"drop"}, Kept: []string{"keep"}, Updated: []string{"cold"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reconciled (-want +got):\n%s", diff)
	}
	if in, _ := s.Instance("keep"); in != running["keep"] || in.Pid() != keptPid {
		t.Errorf("the unchanged block lost its instance or process (pid %d, was %d)", in.Pid(), keptPid)
	}
	if in, _ := s.Instance("change"); in == running["change"] || in.Pid() != 0 {
		t.Errorf("the changed block kept its old instance")
	}
	if in, _ := s.Instance("cold"); in != cold {
		t.Error("the block that never started got a new instance: its holders would keep a dead one")
	}
	if _, err := s.Instance("drop"); err == nil {
		t.Error("the removed block is still an instance")
	}
	// The old configuration has not drained: its instances still answer.
	for _, name := range []string{"change", "drop"} {
		if _, text, err := collect(ctx, running[name], "still "+name); err != nil || text != "still "+name {
			t.Fatalf("retired %s before the drain: %q, %v", name, text, err)
		}
	}
	oldPids := []int{running["change"].Pid(), running["drop"].Pid()}
	close(drained)
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for _, pid := range oldPids {
		for !gone(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("retired process %d still runs after the drain", pid)
			}
			// The reaped process is another process's exit: nothing to
			// wait on but its pid, polled under the hang guard.
			time.Sleep(10 * time.Millisecond)
		}
	}
	if !running["keep"].busy() && running["keep"].Pid() != keptPid {
		t.Error("the kept process was stopped by the drain")
	}
	// A fixed instance that runs keeps running on its old spec.
	fixed, _ := s.Instance("keep")
	got, err = s.Reconcile([]Spec{spec("keep", time.Minute, `{}`), spec("change", time.Hour, `{}`), spec("cold", 0, `{}`), spec("new", 0, `{}`)},
		make(chan struct{}), func(name string) bool { return name == "keep" })
	if err != nil || !slices.Equal(got.Deferred, []string{"keep"}) {
		t.Errorf("fixed: %+v, %v", got, err)
	}
	if in, _ := s.Instance("keep"); in != fixed || in.Pid() != keptPid {
		t.Error("a fixed running instance was replaced")
	}
	if in, _ := s.Instance("change"); in != nil {
		if _, text, err := collect(ctx, in, "new config"); err != nil || text != "new config" {
			t.Errorf("the changed block's new instance: %q, %v", text, err)
		}
	}
	s.mu.Lock()
	slots := len(s.slots)
	s.mu.Unlock()
	if slots != 4 {
		t.Errorf("%d id slots held by 4 instances: retired ones did not free theirs", slots)
	}
}

// TestReconcileRefusesABadSpecAndChangesNothing: one bad spec and the
// supervisor keeps what it had.
func TestReconcileRefusesABadSpecAndChangesNothing(t *testing.T) {
	t.Parallel()
	s := newSupervisor(t, &logbuf.Buffer{}, Options{HealthInterval: time.Hour})
	if err := s.Add(Spec{Name: "a", Kind: sdk.KindProvider, Path: bin("echo")}); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Instance("a")
	for _, specs := range [][]Spec{
		{{Name: "a", Kind: sdk.KindProvider, Path: bin("echo")}, {Name: "", Path: bin("echo")}},
		{{Name: "b", Kind: sdk.KindProvider, Path: bin("echo")}, {Name: "b", Kind: sdk.KindProvider, Path: bin("echo")}},
	} {
		if _, err := s.Reconcile(specs, make(chan struct{}), nil); err == nil {
			t.Errorf("%+v: no error", specs)
		}
	}
	if after, err := s.Instance("a"); err != nil || after != before || len(s.Names()) != 1 {
		t.Errorf("a refused reconcile changed the instances: %v %v", s.Names(), err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.slots) != 1 {
		t.Errorf("a refused reconcile left %d slots held", len(s.slots))
	}
}
