//go:build !linux

package supervisor

import "syscall"

// plainSysProcAttr: its own process group (no parent-death signal here).
func plainSysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// inheritedBinary names the child's fd 3, the binary the host checked.
const inheritedBinary = "/dev/fd/3"
