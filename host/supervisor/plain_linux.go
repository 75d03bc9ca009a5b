package supervisor

import "syscall"

// plainSysProcAttr is an unsandboxed plugin's: it dies with the host
// (Pdeathsig) and has its own process group.
func plainSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// inheritedBinary names the child's fd 3, the binary the host checked.
const inheritedBinary = "/proc/self/fd/3"
