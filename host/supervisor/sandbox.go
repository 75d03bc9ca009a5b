package supervisor

import "fmt"

// Sandbox selects how a plugin process is isolated.
type Sandbox string

const (
	// SandboxNetNS runs the plugin in a fresh network namespace with no
	// interface but a down loopback: the go-plugin unix socket works, no
	// other socket does. Linux only. The default.
	SandboxNetNS Sandbox = "netns"
	// SandboxNone runs the plugin in the host's network namespace (needed,
	// for example, where a namespace would hide a device the plugin uses).
	SandboxNone Sandbox = "none"
)

// ParseSandbox reads a config value; "" is the default.
func ParseSandbox(s string) (Sandbox, error) {
	switch Sandbox(s) {
	case "", SandboxNetNS:
		return SandboxNetNS, nil
	case SandboxNone:
		return SandboxNone, nil
	}
	return "", fmt.Errorf("sandbox %q: want %q or %q", s, SandboxNetNS, SandboxNone)
}
