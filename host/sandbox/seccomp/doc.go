// Package seccomp is the system-call filter of every sandboxed plugin: the
// sandbox init installs it right before it executes the plugin binary, and
// it stays on the plugin, its threads and its children for their whole
// lives.
//
// The filter is an allow list measured on the first-party plugins (see
// README.md for how). Anything not on it fails with ENOSYS, so a program
// that probes a newer call falls back as it would on an older kernel. The
// calls that would reach outside the jail (namespaces, mounts, ptrace,
// kernel modules, BPF, keyrings, clocks, ...) fail with EPERM; socket and
// socketpair work only for AF_UNIX (InstallWith(Options{Inet: true}) also
// allows AF_INET and AF_INET6 sockets, for a process in a network namespace
// of its own whose only interface is loopback); clone works only without namespace
// flags; ioctl works except TIOCSTI and TIOCLINUX, which type into a
// terminal.
//
// It must never report a filter that is not in force: Install returns nil
// only after the kernel took the filter on every thread and a denied call
// was seen to fail. It never loosens a filter already in place (the kernel
// only ever adds filters).
package seccomp
