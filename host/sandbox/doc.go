// Package sandbox builds the jail every plugin process runs in.
//
// On Linux a jail is: a user namespace whose ids are never the host's own
// when the host runs as root (a dedicated uid and gid per plugin instance),
// PID, mount, network, IPC, UTS and cgroup namespaces, a minimal read-only
// file view holding only the plugin binary, what a Go program needs and the
// paths its block grants, an empty capability set, no_new_privs, and the
// system-call filter of host/sandbox/seccomp.
//
// The host side (Jail.Command) builds an exec.Cmd whose first process is this
// package's init, re-executed from the host's own binary (/proc/self/exe,
// argv[0] "axon-sandbox-init"). The init builds the jail from inside its new
// namespaces and then executes the plugin binary by the descriptor the host
// opened and checked, so a path swapped after the check is never run.
//
// It must never start a plugin with fewer layers than it reports: a layer that
// cannot be set up fails the start with an error naming the layer. It never
// hands the plugin a descriptor to anything outside the jail.
package sandbox
