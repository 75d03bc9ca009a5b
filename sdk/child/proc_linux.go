package child

import (
	"syscall"
	"unsafe"
)

// WaitExited blocks until process pid has exited, without reaping it
// (waitid with WNOWAIT): while it is a zombie its pid, and so its process
// group's id, cannot be reused, so killing the group after this is safe.
// It reports false when it could not wait; the caller then kills the
// group only before reaping.
func WaitExited(pid int) bool {
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

// exitedChild returns the pid of an exited child that is not yet reaped,
// without reaping it, or 0 when there is none.
func exitedChild() int {
	const (
		pAll    = 0
		wNoHang = 0x1
		wExited = 0x4
		wNoWait = 0x1000000
	)
	var info [128]byte // siginfo_t; si_pid follows three ints, aligned as a pointer
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pAll, 0, uintptr(unsafe.Pointer(&info[0])), wExited|wNoHang|wNoWait, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return 0
		}
		off := (12 + unsafe.Sizeof(uintptr(0)) - 1) &^ (unsafe.Sizeof(uintptr(0)) - 1)
		return int(*(*int32)(unsafe.Pointer(&info[off])))
	}
}

// reapChild reaps exited child pid; false when it could not.
func reapChild(pid int) bool {
	var ws syscall.WaitStatus
	for {
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		return err == nil && got == pid
	}
}
