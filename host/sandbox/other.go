//go:build !linux

package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
)

// Supported refuses jails where they cannot be built, rather than silently
// running plugins without one.
func Supported() error {
	return fmt.Errorf("the plugin sandbox needs Linux namespaces, not available on %s; set sandbox = \"none\"", runtime.GOOS)
}

// Plan: no layer exists on this system.
func Plan(IDs) Layers { return Layers{Notes: []string{"no sandbox on " + runtime.GOOS}} }

// Process is never built on this system.
type Process struct{ Cmd *exec.Cmd }

func (j *Jail) Command() (*Process, error) { return nil, Supported() }
func (p *Process) Start() error            { return Supported() }
func (p *Process) Failure() error          { return nil }

// HardenHost has nothing to do on this system.
func HardenHost() error { return nil }

// SubIDs is the block of subordinate ids of the host's user (Linux only).
type SubIDs struct{ UID, GID, Count int }

// LookupSubIDs: there are none on this system.
func LookupSubIDs() (SubIDs, error) { return SubIDs{}, Supported() }
