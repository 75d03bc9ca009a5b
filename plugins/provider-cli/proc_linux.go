package main

import (
	"syscall"
	"unsafe"
)

// waitExited blocks until process pid has exited, without reaping it
// (waitid with WNOWAIT): while it is a zombie its pid, and so its process
// group's id, cannot be reused, so killing the group after this is safe.
// It reports false when it could not wait; the caller then kills the
// group only before reaping.
func waitExited(pid int) bool {
	const (
		pPID    = 1
		wExited = 0x4
		wNoWait = 0x1000000
	)
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), wExited|wNoWait, 0, 0)
		switch errno {
		case 0:
			return true
		case syscall.EINTR:
			continue
		}
		return false
	}
}
