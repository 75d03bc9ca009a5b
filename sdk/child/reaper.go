package child

import (
	"os/exec"
	"sync"
)

// Reaper tracks the children a plugin has running. In the sandbox the
// plugin is its PID namespace's init, so every process a child leaves
// behind (killed with its group, or orphaned before) becomes the plugin's
// child when that child dies, and a zombie for good unless the plugin
// reaps it. Sweep reaps those orphans, never a tracked child: os/exec is
// still to wait for its exit status, and reaping it first would make that
// wait fail. Start and Sweep share a lock, so a child cannot exit between
// its start and its registration and be taken for an orphan.
//
// Sweeping assumes the process has no children but the ones started here,
// which holds in a plugin binary; it is off unless SweepOrphans is set
// (set it when os.Getpid() == 1).
type Reaper struct {
	SweepOrphans bool

	mu     sync.Mutex
	active map[int]bool
}

// Start starts cmd and tracks it.
func (r *Reaper) Start(cmd *exec.Cmd) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	if r.active == nil {
		r.active = map[int]bool{}
	}
	r.active[cmd.Process.Pid] = true
	return nil
}

// Done stops tracking a child os/exec has reaped, then sweeps.
func (r *Reaper) Done(pid int) {
	r.mu.Lock()
	delete(r.active, pid)
	r.mu.Unlock()
	r.Sweep()
}

// Sweep reaps every exited child that is not tracked, up to the first
// exited tracked one (its own waiter is about to take it, and sweeps
// again after).
func (r *Reaper) Sweep() {
	if !r.SweepOrphans {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		pid := exitedChild()
		if pid <= 0 || r.active[pid] {
			return
		}
		if !reapChild(pid) {
			return
		}
	}
}
