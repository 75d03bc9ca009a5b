package supervisor

import (
	"fmt"
	"os"

	"github.com/axonhq/axon/hcl/config"
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

// DefaultIDRange is the configuration's default (axon { plugin_ids }).
var DefaultIDRange = IDRange(config.DefaultPluginIDs)

// idSource hands out the host ids of jailed plugins: on a root host from
// the IDRange; unprivileged, from the user's subordinate ids when it has
// them (and the helpers that map them), else the host's own.
type idSource struct {
	r      IDRange
	sub    sandbox.SubIDs
	subErr error // why there are no subordinate ids (unprivileged only)
}

func newIDSource(r IDRange) *idSource {
	s := &idSource{r: r}
	if os.Geteuid() != 0 {
		s.sub, s.subErr = sandbox.LookupSubIDs()
	}
	return s
}

// instance is the ids and layers of the n-th instance. On a root host they
// are never root's own: a range too small is an error, not a fallback.
func (s *idSource) instance(n int, sp Spec) (sandbox.IDs, sandbox.Layers, error) {
	if sp.Sandbox == SandboxNone {
		return sandbox.IDs{}, sandbox.Layers{Notes: []string{`sandbox = "none"`}}, nil
	}
	var ids sandbox.IDs
	why := ""
	switch {
	case os.Geteuid() == 0:
		if s.r.First <= 0 || n >= s.r.Count-1 {
			return ids, sandbox.Layers{}, fmt.Errorf("plugin id range %d-%d has no id left for plugin instance %d", s.r.First, s.r.First+s.r.Count-1, n+1)
		}
		ids = sandbox.IDs{UID: s.r.First + n, GID: s.r.First + n, Set: true}
	case writesHostFiles(sp.Grants):
		why = "its block grants read-write paths or devices, which stay the host user's"
	case s.subErr != nil:
		why = "no subordinate ids: " + s.subErr.Error()
	case n >= s.sub.Count:
		why = fmt.Sprintf("the user's %d subordinate ids are all taken", s.sub.Count)
	default:
		ids = sandbox.IDs{UID: s.sub.UID + n, GID: s.sub.GID + n, Set: true, Sub: true}
	}
	l := sandbox.Plan(ids)
	if why != "" {
		l.Notes = append(l.Notes, why)
	}
	return ids, l, nil
}

// probe is the ids of a one-off probe (`axon plugins`): the range's last
// id on a root host, the host's own otherwise.
func (s *idSource) probe() sandbox.IDs {
	if os.Geteuid() != 0 {
		return sandbox.IDs{}
	}
	last := s.r.First + s.r.Count - 1
	return sandbox.IDs{UID: last, GID: last, Set: true}
}

// writesHostFiles reports grants whose files must keep the host user's
// ownership: a subordinate uid could not share them with that user.
func writesHostFiles(gs []sandbox.Grant) bool {
	for _, g := range gs {
		if g.Mode == sandbox.ReadWrite || g.Mode == sandbox.Device {
			return true
		}
	}
	return false
}
