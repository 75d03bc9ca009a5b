//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// attacks is the registry of the attack verb, fixed at compile time.
var attacks = map[string]attack{
	"proc-environ":     {"PID", procEnviron},
	"proc-mem":         {"PID", procMem},
	"proc-all-environ": {"", procAllEnviron},
	"ptrace":           {"PID", ptraceSeize},
	"vmread":           {"PID", vmRead},
	"pidfd-getfd":      {"PID FD", pidfdGetfd},
	"setns-net":        {"PID ADDR", setnsNet},
	"dial-tcp":         {"ADDR", dialTCP},
	"dial-udp":         {"ADDR", dialUDP},
	"loopback":         {"", loopback},
	"raw-socket":       {"", rawSocket},
	"abstract-unix":    {"NAME", abstractUnix},
	"unix-connect":     {"PATH", unixConnect},
	"kill":             {"PID", killZero},
	"open":             {"PATH", openPath},
	"write":            {"PATH", writePath},
	"grandchild":       {"TOKEN", grandchild},
	"whoami":           {"", whoami},
	"unshare":          {"", unshareNS},
	"mount":            {"", mountTmpfs},
}

func noSuchAttack(name string) string { return fmt.Sprintf("unknown attack %q", name) }

// procEnviron reads another process's environment. /proc/PID/environ is the
// environment the process was started with, not later setenv calls.
func procEnviron(_ context.Context, args []string) string {
	pid, err := pidArg(args[0])
	if err != nil {
		return usage(err)
	}
	b, err := readLimited(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return blocked("%v", err)
	}
	return escaped("environ of pid %d: %s", pid, loot(b))
}

// firstReadable is the address proc-mem and vmread read at: the start of
// the first readable mapping in /proc/PID/maps, or 0x400000 (where a
// non-PIE amd64 binary's text starts) when maps tells nothing. where says
// which, for the report.
func firstReadable(pid int) (addr uint64, where string) {
	const fallback = 0x400000
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return fallback, fmt.Sprintf("maps unreadable (%v), so %#x", err, fallback)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(f[1], "r") {
			continue
		}
		start, _, _ := strings.Cut(f[0], "-")
		if a, err := strconv.ParseUint(start, 16, 64); err == nil {
			return a, "first readable mapping: " + strings.Join(f, " ")
		}
	}
	return fallback, fmt.Sprintf("no readable mapping in maps, so %#x", fallback)
}

func procMem(_ context.Context, args []string) string {
	pid, err := pidArg(args[0])
	if err != nil {
		return usage(err)
	}
	addr, where := firstReadable(pid)
	path := fmt.Sprintf("/proc/%d/mem", pid)
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return blocked("open %s: %v (%s)", path, err, where)
	}
	defer unix.Close(fd)
	buf := make([]byte, 64)
	n, err := unix.Pread(fd, buf, int64(addr))
	if err != nil {
		return blocked("read %s at %#x: %v (%s)", path, addr, err, where)
	}
	if n <= 0 {
		return blocked("read %s at %#x: no bytes (%s)", path, addr, where)
	}
	return escaped("%d bytes of pid %d at %#x (%s): hex %x text %s", n, pid, addr, where, buf[:n], loot(buf[:n]))
}

// procAllEnviron reads every other process's environment it can find.
// Environments that read as empty (kernel threads have none) are listed but
// do not count as read.
func procAllEnviron(context.Context, []string) string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return blocked("%v", err)
	}
	// /proc/self names this process in the pid namespace of that /proc,
	// which need not be the one os.Getpid answers in.
	self := strconv.Itoa(os.Getpid())
	if s, err := os.Readlink("/proc/self"); err == nil {
		self = s
	}
	const total = 16 * lootLimit
	var read, empty []string
	var contents strings.Builder
	var unreadable int
	var firstErr error
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil || e.Name() == self {
			continue
		}
		b, err := readLimited("/proc/" + e.Name() + "/environ")
		switch {
		case err != nil:
			unreadable++
			if firstErr == nil {
				firstErr = err
			}
		case len(b) == 0:
			empty = append(empty, e.Name())
		default:
			read = append(read, e.Name())
			if contents.Len() < total {
				fmt.Fprintf(&contents, "; pid %s: %s", e.Name(), loot(b))
			}
		}
	}
	if len(read) == 0 {
		if firstErr == nil && len(empty) == 0 {
			return blocked("no other process in /proc")
		}
		return blocked("no other process's environment read (%d unreadable, the first: %v; %d empty: %v)",
			unreadable, firstErr, len(empty), empty)
	}
	more := ""
	if contents.Len() >= total {
		more = " [contents cut after the first pids]"
	}
	return escaped("read the environment of %d other processes %v (%d unreadable, %d empty)%s%s",
		len(read), read, unreadable, len(empty), contents.String(), more)
}

// ptraceSeize makes this thread the pid's tracer. The thread stays locked:
// if the detach below fails, the thread's exit detaches.
func ptraceSeize(_ context.Context, args []string) string {
	pid, err := pidArg(args[0])
	if err != nil {
		return usage(err)
	}
	runtime.LockOSThread()
	if err := unix.PtraceSeize(pid); err != nil {
		return blocked("PTRACE_SEIZE pid %d: %v", pid, err)
	}
	return escaped("seized pid %d with PTRACE_SEIZE; %s", pid, ptraceRelease(pid))
}

// ptraceRelease stops the seized pid (PTRACE_DETACH needs a stopped tracee),
// waits at most a second for the stop, and detaches.
func ptraceRelease(pid int) string {
	if err := unix.PtraceInterrupt(pid); err != nil {
		return "PTRACE_INTERRUPT: " + err.Error()
	}
	for deadline := time.Now().Add(time.Second); ; {
		var ws unix.WaitStatus
		got, err := unix.Wait4(pid, &ws, unix.WNOHANG|unix.WALL, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return "wait: " + err.Error()
		}
		if got == pid {
			break
		}
		if time.Now().After(deadline) {
			return "no stop within 1s; left to the thread's exit to detach"
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := unix.PtraceDetach(pid); err != nil {
		return "PTRACE_DETACH: " + err.Error()
	}
	return "detached"
}

func vmRead(_ context.Context, args []string) string {
	pid, err := pidArg(args[0])
	if err != nil {
		return usage(err)
	}
	addr, where := firstReadable(pid)
	buf := make([]byte, 64)
	local := []unix.Iovec{{Base: &buf[0]}}
	local[0].SetLen(len(buf))
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(buf)}}
	n, err := unix.ProcessVMReadv(pid, local, remote, 0)
	if err != nil {
		return blocked("process_vm_readv pid %d at %#x: %v (%s)", pid, addr, err, where)
	}
	if n <= 0 {
		return blocked("process_vm_readv pid %d at %#x: no bytes (%s)", pid, addr, where)
	}
	return escaped("%d bytes of pid %d at %#x (%s): hex %x text %s", n, pid, addr, where, buf[:n], loot(buf[:n]))
}

func pidfdGetfd(_ context.Context, args []string) string {
	pid, err := pidArg(args[0])
	if err != nil {
		return usage(err)
	}
	target, err := fdArg(args[1])
	if err != nil {
		return usage(err)
	}
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return blocked("pidfd_open(%d): %v", pid, err)
	}
	defer unix.Close(pidfd)
	fd, err := unix.PidfdGetfd(pidfd, target, 0)
	if err != nil {
		return blocked("pidfd_getfd(pid %d, fd %d): %v", pid, target, err)
	}
	defer unix.Close(fd)
	return escaped("took fd %d of pid %d as our fd %d: %s", target, pid, fd, describeFD(fd))
}

// describeFD says what a descriptor is: its type, device and inode, the
// addresses of a socket, and its /proc link when there is a /proc.
func describeFD(fd int) string {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return "fstat: " + err.Error()
	}
	kinds := map[uint32]string{
		unix.S_IFREG: "file", unix.S_IFDIR: "directory", unix.S_IFCHR: "character device",
		unix.S_IFBLK: "block device", unix.S_IFIFO: "pipe", unix.S_IFSOCK: "socket", unix.S_IFLNK: "symlink",
	}
	kind, ok := kinds[st.Mode&unix.S_IFMT]
	if !ok {
		kind = fmt.Sprintf("mode %#o", st.Mode)
	}
	desc := fmt.Sprintf("%s dev %d ino %d rdev %d size %d", kind, st.Dev, st.Ino, st.Rdev, st.Size)
	if st.Mode&unix.S_IFMT == unix.S_IFSOCK {
		sa, err := unix.Getsockname(fd)
		desc += ", local " + sockaddrText(sa, err)
		sa, err = unix.Getpeername(fd)
		desc += ", peer " + sockaddrText(sa, err)
	}
	if link, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd)); err == nil {
		desc += ", link " + link
	}
	return desc
}

func sockaddrText(sa unix.Sockaddr, err error) string {
	if err != nil {
		return err.Error()
	}
	switch sa := sa.(type) {
	case *unix.SockaddrInet4:
		return fmt.Sprintf("%d.%d.%d.%d:%d", sa.Addr[0], sa.Addr[1], sa.Addr[2], sa.Addr[3], sa.Port)
	case *unix.SockaddrInet6:
		return fmt.Sprintf("[%x]:%d", sa.Addr, sa.Port)
	case *unix.SockaddrUnix:
		if sa.Name == "" {
			return "unix (unnamed)"
		}
		return "unix " + sa.Name
	default:
		return fmt.Sprintf("%T", sa)
	}
}

// killZero asks the kernel whether pid exists and would take a signal from
// us. Signal 0 is never delivered.
func killZero(_ context.Context, args []string) string {
	pid, err := pidArg(args[0])
	if err != nil {
		return usage(err)
	}
	if err := unix.Kill(pid, 0); err != nil {
		return blocked("kill(%d, 0): %v", pid, err)
	}
	return escaped("kill(%d, 0) succeeded: pid %d is visible and signalable", pid, pid)
}

// unshareNS tries to make new user and mount namespaces. The kernel refuses
// CLONE_NEWUSER to a multi-threaded caller, and a Go process always is, so
// unshare(CLONE_NEWUSER) fails with EINVAL even unsandboxed; the user
// namespace is therefore also tried the way a Go program gets one, in a new
// child (clone with CLONE_NEWUSER). That child execs a path that does not
// exist: ENOENT from the exec means the clone, namespace and all, worked.
func unshareNS(context.Context, []string) string {
	// The thread may end up in a new mount namespace: it must not go back to
	// the runtime's pool.
	runtime.LockOSThread()
	userErr := unix.Unshare(unix.CLONE_NEWUSER)
	_, cloneErr := syscall.ForkExec("/nonexistent/axon-testplugin-probe", []string{"probe"},
		&syscall.ProcAttr{Sys: &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}})
	cloneWorked := cloneErr == syscall.ENOENT
	if cloneWorked {
		cloneErr = nil
	}
	mntErr := unix.Unshare(unix.CLONE_NEWNS)
	report := fmt.Sprintf("unshare(CLONE_NEWUSER): %s; clone(CLONE_NEWUSER) child: %s; unshare(CLONE_NEWNS): %s",
		errText(userErr), errText(cloneErr), errText(mntErr))
	if cloneWorked {
		report += " (the child got as far as exec, which failed with ENOENT as intended)"
	}
	if userErr == nil || cloneWorked || mntErr == nil {
		return escaped("%s", report)
	}
	return blocked("%s", report)
}

// mountTmpfs tries to mount a tmpfs at /tmp/x, and undoes it if it worked.
func mountTmpfs(context.Context, []string) string {
	const dir = "/tmp/x"
	note := ""
	made := false
	if err := os.Mkdir(dir, 0o755); err == nil {
		made = true
	} else if !os.IsExist(err) {
		note = fmt.Sprintf(" (mkdir: %v)", err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=64k"); err != nil {
		if made {
			os.Remove(dir)
		}
		return blocked("mount tmpfs on %s: %v%s", dir, err, note)
	}
	undo := "unmounted again"
	if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
		undo = "unmount: " + err.Error()
	} else if made {
		os.Remove(dir)
	}
	return escaped("mounted a tmpfs on %s%s; %s", dir, note, undo)
}

// nulsToSpaces renders a NUL-separated /proc list (cmdline) as words.
func nulsToSpaces(b []byte) string {
	return string(bytes.TrimRight(bytes.ReplaceAll(b, []byte{0}, []byte{' '}), " "))
}
