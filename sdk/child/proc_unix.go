//go:build unix

package child

import "syscall"

// OwnGroup puts the child in a process group of its own, so that it and
// everything it starts can be killed together.
func OwnGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// KillGroup kills process group pgid with SIGKILL; a group already gone
// is not an error.
func KillGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }

// Signalled reports the signal that ended a process, if one did.
func Signalled(sys any) (string, bool) {
	ws, ok := sys.(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return "", false
	}
	return ws.Signal().String(), true
}
