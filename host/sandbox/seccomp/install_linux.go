package seccomp

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	seccompbpf "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Install sets no_new_privs and loads the plugin filter on every thread of
// the calling process (TSYNC). It never returns nil unless the filter is in
// force.
func Install() error { return InstallWith(Options{}) }

// InstallWith is Install with the filter widened by o.
func InstallWith(o Options) error {
	p, err := Policy(runtime.GOARCH)
	if err != nil {
		return err
	}
	return load(seccompbpf.Filter{NoNewPrivs: true, Flag: seccompbpf.FilterFlagTSync, Policy: p}, o.rules())
}

// load is the library's LoadFilter with three differences that Install's
// promise needs: the default action is ENOSYS (assemble), no_new_privs and
// the filter are set from one locked OS thread (prctl is per thread, and
// the goroutine could move between the two calls), and a TSYNC failure is
// an error (the kernel reports it as a positive thread id with no errno,
// which LoadFilter takes for success).
func load(f seccompbpf.Filter, rules []argRule) error {
	prog, err := assemble(f.Policy, rules)
	if err != nil {
		return err
	}
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return fmt.Errorf("seccomp: assemble: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, ins := range raw {
		filter[i] = unix.SockFilter{Code: ins.Op, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if f.NoNewPrivs {
		if err := seccompbpf.SetNoNewPrivs(); err != nil {
			return fmt.Errorf("seccomp: set no_new_privs: %w", err)
		}
	}
	tid, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, uintptr(f.Flag), uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(filter)
	switch {
	case e != 0:
		return fmt.Errorf("seccomp: load filter: %w", e)
	case tid != 0:
		return fmt.Errorf("seccomp: load filter: thread %d cannot take it (TSYNC); no thread has it", tid)
	}
	return probe()
}

// probe checks that a denied call is refused: setns(-1, 0) fails with
// EBADF on a process without the filter and touches nothing either way.
func probe() error {
	_, _, e := unix.Syscall(unix.SYS_SETNS, ^uintptr(0), 0, 0)
	if !errors.Is(e, unix.EPERM) {
		return fmt.Errorf("seccomp: the filter is not in force: setns answered %v, want EPERM", e)
	}
	return nil
}
