package supervisor

import (
	"fmt"
	"os"

	"github.com/axonhq/axon/host/sandbox"
)

// Sandbox selects how a plugin process is isolated.
type Sandbox string

const (
	// SandboxFull runs the plugin in its own jail (package sandbox): user,
	// PID, mount, network, IPC, UTS and cgroup namespaces, no capabilities,
	// no_new_privs, seccomp. Linux only. The default.
	SandboxFull Sandbox = "full"
	// SandboxNone runs the plugin as a plain child process of the host: the
	// explicit opt-out.
	SandboxNone Sandbox = "none"
)

// ParseSandbox reads a config value; "" is the default. "netns", the name
// of the network-only sandbox this one replaced, means the full sandbox.
func ParseSandbox(s string) (Sandbox, error) {
	switch Sandbox(s) {
	case "", SandboxFull, "netns":
		return SandboxFull, nil
	case SandboxNone:
		return SandboxNone, nil
	}
	return "", fmt.Errorf("sandbox %q: want %q or %q", s, SandboxFull, SandboxNone)
}

func sandboxSupported(sb Sandbox) error {
	if sb == SandboxNone {
		return nil
	}
	return sandbox.Supported()
}

// IDRange is the block of host uids and gids a root host gives its plugins:
// instance n runs as First+n (uid and gid), a probe (`axon plugins`) as the
// last id. An unprivileged host cannot use it and runs every plugin under
// its own ids, inside a user namespace.
type IDRange struct {
	First int
	Count int
}

// DefaultIDRange starts above the ranges systemd hands out to containers
// and below 2^31 (tools that read ids as signed numbers).
var DefaultIDRange = IDRange{First: 1879048192, Count: 65536}

// instance is the ids of the n-th instance; on a root host, never root's
// own: a range too small is an error, not a fallback.
func (r IDRange) instance(n int) (sandbox.IDs, error) {
	if os.Geteuid() != 0 {
		return sandbox.IDs{}, nil
	}
	if r.First <= 0 || n >= r.Count-1 {
		return sandbox.IDs{}, fmt.Errorf("plugin id range %d-%d has no id left for plugin instance %d", r.First, r.First+r.Count-1, n+1)
	}
	return sandbox.IDs{UID: r.First + n, GID: r.First + n, Set: true}, nil
}

func (r IDRange) probe() sandbox.IDs {
	if os.Geteuid() != 0 {
		return sandbox.IDs{}
	}
	last := r.First + r.Count - 1
	return sandbox.IDs{UID: last, GID: last, Set: true}
}

// Layers says what a plugin of this sandbox mode gets on this host.
func (r IDRange) Layers(sb Sandbox, n int) sandbox.Layers {
	if sb == SandboxNone {
		return sandbox.Layers{Notes: []string{`sandbox = "none"`}}
	}
	ids, err := r.instance(n)
	if err != nil {
		return sandbox.Layers{Notes: []string{err.Error()}}
	}
	return sandbox.Plan(ids)
}
