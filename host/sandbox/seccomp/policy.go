package seccomp

// How the allow list was derived (2026-12-01, Go 1.26.8, Linux 6.18;
// README.md has the commands):
//
//  1. Measured. strace -f -ff on the repo's tests that start real plugin
//     subprocesses (host/supervisor, host/daemon, host/session, host/cli;
//     plugins built with CGO_ENABLED=0, as `make build` does) and on a
//     throwaway go-plugin harness that started every binary of `make build`
//     and made it work: providers configured, Models and three Generate
//     calls streaming recorded fixtures through the egress; tools called
//     (notes appended, listed, read; clock now and convert_time; fetch
//     through the egress); displays configured and shown every expression
//     (png frames written, term drawn on a tty; epd has no panel here and
//     stopped at its pin lookup). Only the syscalls of processes that had
//     executed an axon-* plugin binary were kept, from that execve on. The
//     same harness ran the GOARCH=arm64 builds under qemu-aarch64 -d strace.
//     Those are the names marked "measured" below.
//  2. Linked. `go tool objdump` of every plugin binary, reading the call
//     number passed at each call of the syscall package's entry points:
//     what the linked standard library can call on paths the runs did not
//     take (file metadata, sendmsg/recvmsg, wait4/pidfd for children).
//  3. Reasoned. What the Go runtime calls on rarely hit paths (profiling
//     timers, thread exit, restart after a signal), what the sandbox init
//     needs after Install (execveat), and what a child the plugin runs needs
//     to start (glibc's /bin/true and /bin/sh, traced).
//
// Then every plugin ran the harness again under Install and answered as
// it did unfiltered; strace saw none of its calls refused but the probe.
//
// A call goes on the list only if it cannot reach outside the process's
// own jail; the namespaces, the file view and the capability set decide
// what a file or a pid names.

import (
	"fmt"
	"runtime"
	"slices"

	seccompbpf "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
)

// Linux values, the same on amd64 and arm64. They are spelled out so the
// policy builds, and can be printed, on any system.
const (
	errnoEPERM        = 1
	errnoENOSYS       = 38
	errnoEAFNOSUPPORT = 97

	afUnix  = 1
	afInet  = 2
	afInet6 = 10

	tiocsti   = 0x5412 // push a byte into a terminal's input queue
	tioclinux = 0x541c // console selection and paste

	cloneNamespaces = 0x00020000 | // CLONE_NEWNS
		0x02000000 | // CLONE_NEWCGROUP
		0x04000000 | // CLONE_NEWUTS
		0x08000000 | // CLONE_NEWIPC
		0x10000000 | // CLONE_NEWUSER
		0x20000000 | // CLONE_NEWPID
		0x40000000 | // CLONE_NEWNET
		0x00000080 // CLONE_NEWTIME; in clone() this bit belongs to the exit signal, which no valid signal sets
)

// allowCommon exist under these names on amd64 and arm64.
var allowCommon = []string{
	// Measured in every plugin: the Go runtime, go-plugin, gRPC over a
	// unix socket.
	"accept4", "bind", "close", "connect", "epoll_create1", "epoll_ctl",
	"epoll_pwait", "eventfd2", "execve", "exit_group", "fcntl", "fstat",
	"futex", "getpeername", "getpid", "getrandom", "getsockname",
	"getsockopt", "gettid", "listen", "madvise", "mmap", "nanosleep",
	"openat", "pipe2", "prctl", "pread64", "prlimit64", "read", "readlinkat",
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sched_getaffinity",
	"sched_yield", "setsockopt", "sigaltstack", "tgkill", "unlinkat", "write",
	// Measured in the plugins that keep files (notes, png).
	"fchmodat", "fsync", "getdents64", "mkdirat", "renameat",
	// Measured under qemu, where the vDSO does not answer.
	"clock_gettime",

	// Linked: the standard library's other file, socket and child calls.
	"copy_file_range", "dup", "fchdir", "fchmod", "fchown", "fchownat",
	"ftruncate", "getcwd", "linkat", "lseek", "mremap", "pidfd_open",
	"pidfd_send_signal", "pwrite64", "recvfrom", "recvmsg", "sendfile",
	"sendmsg", "sendto", "shutdown", "splice", "symlinkat", "uname",
	"utimensat", "wait4", "waitid", "writev",

	// Reasoned: the Go runtime on rare paths. exit ends a locked thread;
	// munmap, mprotect and mincore manage memory; kill and tkill raise
	// crash signals; the timers drive CPU profiles; restart_syscall resumes
	// a sleep a signal interrupted.
	"clock_nanosleep", "exit", "kill", "mincore", "mprotect", "munmap",
	"restart_syscall", "setitimer", "timer_create", "timer_delete",
	"timer_settime", "tkill",
	// Reasoned: the sandbox init executes the plugin by descriptor after
	// Install. os/exec's child side moves descriptors into place and may
	// take a process group or a session.
	"execveat", "dup3", "getppid", "setpgid", "setsid",
	// Reasoned: os/exec's child changes to Cmd.Dir (the cli provider runs
	// its client in its TMPDIR).
	"chdir",
	// Reasoned: a dynamically linked child (glibc's /bin/true, /bin/sh,
	// traced) starts with these, asks who it is and polls; faccessat2 is
	// also Go's Faccessat with flags.
	"brk", "faccessat", "faccessat2", "fstatfs", "getegid", "geteuid",
	"getgid", "getuid", "ppoll", "pselect6", "readv", "rseq",
	"set_robust_list", "set_tid_address", "statfs", "statx",
	// A plugin may only add filters of its own: it cannot remove this one.
	"seccomp",
}

// allowArch are the names one architecture has and the other does not.
var allowArch = map[string][]string{
	"amd64": {
		"arch_prctl", // measured: the runtime sets its TLS
		"newfstatat", // measured; arm64 calls the same number "fstatat"
		// The older calls amd64 keeps and arm64 replaced by *at forms:
		// linked (epoll_wait: periph's edge wait), or used by children.
		"access", "dup2", "epoll_create", "epoll_wait", "fork", "lstat",
		"mkdir", "open", "pipe", "poll", "readlink", "rename", "rmdir",
		"select", "stat", "unlink", "vfork",
	},
	"arm64": {
		"fstatat", // newfstatat, measured under qemu
	},
}

// denyCommon fail with EPERM: each reaches outside the jail, into another
// process, or into the kernel itself. The group comes before the allow
// list, and TestListsDisjoint keeps every name here off Allowed.
var denyCommon = []string{
	// Other processes.
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
	// Namespaces and mounts.
	"setns", "unshare", "mount", "umount2", "pivot_root", "chroot",
	"fsopen", "fsconfig", "fsmount", "fspick", "open_tree", "open_tree_attr",
	"move_mount", "mount_setattr",
	// Files by handle bypass the path walk, and so the file view.
	"open_by_handle_at", "name_to_handle_at",
	// The kernel's own machinery.
	"bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key",
	"request_key", "kexec_load", "kexec_file_load", "init_module",
	"finit_module", "delete_module", "lookup_dcookie",
	// io_uring runs operations (sockets, opens) that no filter sees.
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	// The machine.
	"swapon", "swapoff", "reboot", "syslog", "acct", "settimeofday",
	"clock_settime", "clock_adjtime", "adjtimex", "quotactl", "quotactl_fd",
	"vhangup",
	// Go never calls personality (checked); its flags turn off ASLR.
	"personality",
}

// denyArch are the denied names that exist on one architecture only.
var denyArch = map[string][]string{
	"amd64": {"iopl", "ioperm"},
	"arm64": {},
}

// allowIf are the calls allowed only when every check on their arguments
// holds; the policy refuses the rest of them. An argument is 64 bits and
// each check reads one 32-bit half: the half the kernel reads.
var allowIf = []argRule{
	{"socket", []argCheck{{0, high, equal, 0}, {0, low, equal, afUnix}}},
	{"socketpair", []argCheck{{0, high, equal, 0}, {0, low, equal, afUnix}}},
	// Flags are argument 0 on amd64 and arm64. The kernel reads their low
	// half, which holds every namespace flag.
	{"clone", []argCheck{{0, low, bitsClear, cloneNamespaces}}},
	// The kernel reads the request as 32 bits: a request with high bits set
	// is TIOCSTI to it, so it is refused too.
	{"ioctl", []argCheck{{1, high, equal, 0}, {1, low, notEqual, tiocsti}, {1, low, notEqual, tioclinux}}},
}

// Options widen the filter for one plugin process.
type Options struct {
	// Inet allows socket() for AF_INET and AF_INET6 as well. Only a
	// process in a network namespace of its own gets it (the sandbox's
	// net layer, with nothing in it but loopback): there such a socket
	// reaches the process's own 127.0.0.1 and nothing else. It is for the
	// HTTPS proxy the host offers a plugin (egress { proxy = true }),
	// which listens on that loopback.
	Inet bool
}

// inetRules allow socket() for the two Internet families, with the same
// checks as AF_UNIX: the high half of the family zero.
var inetRules = []argRule{
	{"socket", []argCheck{{0, high, equal, 0}, {0, low, equal, afInet}}},
	{"socket", []argCheck{{0, high, equal, 0}, {0, low, equal, afInet6}}},
}

// rules are the argument rules the filter checks under o.
func (o Options) rules() []argRule {
	if o.Inet {
		return slices.Concat(allowIf, inetRules)
	}
	return allowIf
}

func errno(e uint32) seccompbpf.Action { return seccompbpf.ActionErrno | seccompbpf.Action(e) }

// Policy returns the policy for the named GOARCH ("amd64", "arm64"),
// after checking that every name exists there: the part of the filter
// that decides by system-call number alone. Install adds two things the
// library cannot express: ENOSYS as the default action (the library
// validates only a bare errno, which means EPERM), also for calls of
// another ABI (i386, x32); and, before the policy, the argument checks of
// socket, socketpair, clone and ioctl. The library has argument conditions
// of its own, but (v1.6.0) a failed one leaves the argument where the next
// check expects the call number, which let socket(AF_NETLINK) through.
// Used alone, the policy refuses those four calls whatever their arguments.
func Policy(goarch string) (seccompbpf.Policy, error) {
	allowOwn, ok := allowArch[goarch]
	if !ok {
		return seccompbpf.Policy{}, fmt.Errorf("seccomp: no plugin policy for GOARCH %q (only amd64 and arm64)", goarch)
	}
	p := seccompbpf.Policy{
		DefaultAction: seccompbpf.ActionErrno, // replaced by ENOSYS in assemble
		Syscalls: []seccompbpf.SyscallGroup{
			{Action: errno(errnoEPERM), Names: slices.Concat(denyCommon, denyArch[goarch])},
			// Its flags live in a struct a filter cannot read; Go and glibc
			// fall back to clone on ENOSYS.
			{Action: errno(errnoENOSYS), Names: []string{"clone3"}},
			{Action: seccompbpf.ActionAllow, Names: slices.Concat(allowCommon, allowOwn)},
			// What the argument checks did not allow.
			{Action: errno(errnoEAFNOSUPPORT), Names: []string{"socket", "socketpair"}},
			{Action: errno(errnoEPERM), Names: []string{"clone", "ioctl"}},
		},
	}
	if err := checkNames(p, goarch); err != nil {
		return seccompbpf.Policy{}, err
	}
	return p, nil
}

// Allowed lists the system calls the filter allows on this architecture,
// sorted (for docs and `axon check`). socket, socketpair, clone and ioctl
// are among them, allowed only with the arguments the package comment
// names.
func Allowed() []string { return allowed(runtime.GOARCH) }

func allowed(goarch string) []string {
	var out []string
	for _, r := range allowIf {
		out = append(out, r.call)
	}
	out = slices.Concat(out, allowCommon, allowArch[goarch])
	slices.Sort(out)
	return out
}

// checkNames fails on a name goarch does not have (the library would find
// it only when assembling there), on a name in two groups (the first would
// silently win), and on an argument rule whose call the policy does not
// refuse.
func checkNames(p seccompbpf.Policy, goarch string) error {
	info, err := arch.GetInfo(goarch)
	if err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	group := map[string]int{}
	for i, g := range p.Syscalls {
		for _, n := range g.Names {
			if _, ok := info.SyscallNames[n]; !ok {
				return fmt.Errorf("seccomp: %s has no system call %q", goarch, n)
			}
			if j, dup := group[n]; dup {
				return fmt.Errorf("seccomp: %q is in groups %d and %d", n, j, i)
			}
			group[n] = i
		}
		if len(g.NamesWithCondtions) > 0 {
			return fmt.Errorf("seccomp: group %d has library argument conditions, which misassemble", i)
		}
	}
	for _, r := range allowIf {
		if i, ok := group[r.call]; !ok || p.Syscalls[i].Action == seccompbpf.ActionAllow {
			return fmt.Errorf("seccomp: %q is allowed by its arguments but not refused otherwise", r.call)
		}
	}
	return nil
}
