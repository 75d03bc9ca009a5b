package supervisor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"
)

var errClosedSupervisor = errors.New("supervisor: closed")

func errDuplicate(name string) error {
	return fmt.Errorf("supervisor: instance %q configured twice", name)
}

// Reconciled says what Reconcile did with each instance name, sorted.
type Reconciled struct {
	Added    []string // new names
	Replaced []string // the spec changed: a new instance, the old one retired
	Removed  []string // no longer configured: retired
	Kept     []string // unchanged: the same instance, its process untouched
	// Updated names instances that had no process: the same instance
	// takes the new spec, which its first start will use.
	Updated []string
	// Deferred names fixed instances (see Reconcile) whose spec changed
	// while they ran: they keep running as they are.
	Deferred []string
}

// Reconcile makes the instances those of specs, for a configuration
// reload. An instance whose spec is unchanged is kept as it is, process
// and all. A changed or removed one is retired: Instance stops returning
// it, but it stays usable by whoever holds it (a request running on the
// old configuration) and is closed once drained is closed and no call is
// in flight on it. A spec is unchanged when everything the host gives the
// plugin is (binary, pin, sandbox, grants, egress grant, idle_stop) and its
// plugin-owned values decode to the same JSON under the Info its last
// start read. An instance with no process and no start under way has
// nothing to keep: it takes the new spec in place (Updated), so whoever
// holds it keeps a valid instance. A running instance fixed names (one
// whose holders cannot be handed a new one, such as a session's tools) is
// never replaced: its change is Deferred. A fixed name missing from specs
// is still removed. On an error nothing changes.
func (s *Supervisor) Reconcile(specs []Spec, drained <-chan struct{}, fixed func(name string) bool) (Reconciled, error) {
	for i := range specs {
		if err := specs[i].check(); err != nil {
			return Reconciled{}, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Reconciled{}, errClosedSupervisor
	}
	var r Reconciled
	next := map[string]*Instance{}
	var made []*Instance
	undo := func() {
		for _, in := range made {
			delete(s.slots, in.slot)
		}
	}
	for _, sp := range specs {
		if _, dup := next[sp.Name]; dup {
			undo()
			return Reconciled{}, errDuplicate(sp.Name)
		}
		old, had := s.instances[sp.Name]
		if had && old.sameSpec(sp) {
			next[sp.Name] = old
			r.Kept = append(r.Kept, sp.Name)
			continue
		}
		if had && s.respecLocked(old, sp) {
			next[sp.Name] = old
			r.Updated = append(r.Updated, sp.Name)
			continue
		}
		if had && fixed != nil && fixed(sp.Name) {
			next[sp.Name] = old
			r.Deferred = append(r.Deferred, sp.Name)
			continue
		}
		in, err := s.newInstanceLocked(sp)
		if err != nil {
			undo()
			return Reconciled{}, err
		}
		made = append(made, in)
		next[sp.Name] = in
		if had {
			r.Replaced = append(r.Replaced, sp.Name)
		} else {
			r.Added = append(r.Added, sp.Name)
		}
	}
	var retired []*Instance
	for name, old := range s.instances {
		if next[name] == old {
			continue
		}
		if _, still := next[name]; !still {
			r.Removed = append(r.Removed, name)
		}
		retired = append(retired, old)
	}
	for _, in := range retired {
		s.retiring[in] = false // not drained yet
	}
	s.instances = next
	for _, l := range [][]string{r.Added, r.Replaced, r.Removed, r.Kept, r.Updated, r.Deferred} {
		slices.Sort(l)
	}
	if len(retired) > 0 {
		go func() {
			<-drained
			s.mu.Lock()
			for _, in := range retired {
				if _, ok := s.retiring[in]; ok {
					s.retiring[in] = true
				}
			}
			s.mu.Unlock()
			s.closeRetired()
		}()
	}
	return r, nil
}

// respecLocked gives in, when it has no process and no start under way,
// sp in place, with the ids and layers of sp in its slot; it reports
// whether it did.
func (s *Supervisor) respecLocked(in *Instance, sp Spec) bool {
	ids, layers, err := s.ids.instance(in.slot, sp)
	if err != nil {
		return false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.proc != nil || in.starting != nil || in.closed {
		return false
	}
	in.spec, in.ids, in.layers, in.configured = sp, ids, layers, nil
	in.failures, in.notUntil = 0, time.Time{}
	return true
}

// sameSpec reports whether sp would run in with nothing changed.
func (in *Instance) sameSpec(sp Spec) bool {
	old := in.spec
	if old.Kind != sp.Kind || old.Path != sp.Path || !bytes.Equal(old.SHA256, sp.SHA256) || old.Sandbox != sp.Sandbox ||
		old.IdleStop != sp.IdleStop || old.MaxProcs != sp.MaxProcs || old.Home != sp.Home || !reflect.DeepEqual(old.Grants, sp.Grants) || !reflect.DeepEqual(old.Egress, sp.Egress) {
		return false
	}
	in.mu.Lock()
	c := in.configured
	in.mu.Unlock()
	if c == nil {
		return false
	}
	values := json.RawMessage(`{}`) // as accept configures a nil Values
	if sp.Values != nil {
		v, err := sp.Values(c.info)
		if err != nil {
			return false
		}
		values = v
	}
	return bytes.Equal(values, c.values)
}

// closeRetired closes every drained retired instance with no call in
// flight, and frees its id slot. It runs after a drain and on every health
// tick, so one busy at the drain closes once its calls end.
func (s *Supervisor) closeRetired() {
	s.mu.Lock()
	var done []*Instance
	for in, drained := range s.retiring {
		if drained && !in.busy() {
			done = append(done, in)
			delete(s.retiring, in)
		}
	}
	s.mu.Unlock()
	for _, in := range done {
		in.close()
		in.logger.Info("plugin retired: its block changed or was removed")
		s.mu.Lock()
		delete(s.slots, in.slot)
		s.mu.Unlock()
	}
}

// busy reports a call in flight or a start under way.
func (in *Instance) busy() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.starting != nil || (in.proc != nil && in.proc.inflight > 0)
}
