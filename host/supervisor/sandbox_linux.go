package supervisor

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// sysProcAttr builds the process attributes for sb. Every plugin dies with
// the host (Pdeathsig), so a killed host leaves no orphans.
func sysProcAttr(sb Sandbox) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if sb != SandboxNetNS {
		return attr
	}
	attr.Cloneflags = syscall.CLONE_NEWNET
	if uid, gid := os.Geteuid(), os.Getegid(); uid != 0 {
		// Unprivileged: a user namespace grants the right to create the
		// network namespace; map our own ids so files keep their owners.
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	}
	return attr
}

// sandboxError explains a launch failure caused by the sandbox, or returns
// err unchanged. There is no silent fallback to an unsandboxed plugin.
func sandboxError(sb Sandbox, name string, err error) error {
	if sb != SandboxNetNS {
		return err
	}
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EUSERS) {
		return fmt.Errorf("plugin %s: cannot create its network namespace (%w); "+
			"the kernel or container forbids unprivileged user/network namespaces. "+
			"Run axon as root, enable user namespaces (sysctl kernel.unprivileged_userns_clone=1), "+
			"or set sandbox = \"none\" to run plugins without network isolation", name, err)
	}
	return err
}

func sandboxSupported(Sandbox) error { return nil }
