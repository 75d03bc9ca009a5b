//go:build unix

package main

import "syscall"

// ownGroup puts the server in a process group of its own, so that it and
// everything it starts can be killed together.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills process group pgid with SIGKILL; a group already gone
// is not an error.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }
