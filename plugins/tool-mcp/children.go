package main

import (
	"os/exec"
	"sync"
)

// children are the servers this plugin has running. In the sandbox the
// plugin is its PID namespace's init, so every process a server leaves
// behind (killed with its group, or orphaned before) becomes the plugin's
// child when the server dies, and a zombie for good unless the plugin
// reaps it. sweep reaps those orphans, never a server: os/exec is still
// to wait for a server's exit status, and reaping it first would make that
// wait fail. Starting a server and sweeping share a lock, so a server
// cannot exit between its start and its registration and be taken for an
// orphan.
//
// It assumes the plugin has no children but its servers, which holds in
// the plugin binary; only the sweep needs that, and it is off unless
// enabled.
type children struct {
	sweepOrphans bool

	mu     sync.Mutex
	active map[int]bool
}

func newChildren(sweepOrphans bool) *children {
	return &children{sweepOrphans: sweepOrphans, active: map[int]bool{}}
}

// start starts cmd and registers it as a server.
func (c *children) start(cmd *exec.Cmd) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	c.active[cmd.Process.Pid] = true
	return nil
}

// done unregisters a server os/exec has reaped, then sweeps.
func (c *children) done(pid int) {
	c.mu.Lock()
	delete(c.active, pid)
	c.mu.Unlock()
	c.sweep()
}

// sweep reaps every exited child that is not a server, up to the first
// exited server (its own reaper is about to take it, and sweeps again
// after).
func (c *children) sweep() {
	if !c.sweepOrphans {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		pid := exitedChild()
		if pid <= 0 || c.active[pid] {
			return
		}
		if !reapChild(pid) {
			return
		}
	}
}
