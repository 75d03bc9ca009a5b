//go:build !linux

package supervisor

import (
	"fmt"
	"runtime"
	"syscall"
)

func sysProcAttr(Sandbox) *syscall.SysProcAttr { return nil }

func sandboxError(_ Sandbox, _ string, err error) error { return err }

// sandboxSupported refuses the network sandbox where it does not exist,
// rather than silently running plugins with network access.
func sandboxSupported(sb Sandbox) error {
	if sb == SandboxNetNS {
		return fmt.Errorf("sandbox %q needs Linux network namespaces, not available on %s; set sandbox = \"none\"", sb, runtime.GOOS)
	}
	return nil
}
