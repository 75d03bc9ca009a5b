package sandbox

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// hint says how to get a refused layer working, by the layer's name at the
// start of the init's report.
func hint(text string) string {
	layer, _, _ := strings.Cut(text, ":")
	switch layer {
	case LayerMount, LayerPID:
		return `; the kernel refused to build the plugin's file view. Inside a container, /proc and /sys must not be masked ` +
			`(a fully visible /proc is needed to mount the jail's own); or set sandbox = "none" on this block to run it unsandboxed`
	case LayerSeccomp:
		return `; the kernel needs CONFIG_SECCOMP_FILTER; or set sandbox = "none" on this block to run it unsandboxed`
	case LayerCaps, LayerUTS:
		return `; or set sandbox = "none" on this block to run it unsandboxed`
	}
	return ""
}

// StartError explains a failure to create the jail's namespaces (the
// clone itself, before the init runs), or returns err unchanged. There is
// no silent fallback to an unsandboxed plugin.
func StartError(name string, err error) error {
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EUSERS) || errors.Is(err, syscall.EACCES) {
		return fmt.Errorf("plugin %s: sandbox: user: cannot create its namespaces (%w); the kernel or the service manager forbids user namespaces. "+
			"Allow them (sysctl user.max_user_namespaces=15000; on Debian kernels also kernel.unprivileged_userns_clone=1; "+
			"on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0; in a systemd unit RestrictNamespaces= must allow user, pid, mnt, net, ipc, uts and cgroup), "+
			"or set sandbox = \"none\" on this block to run it unsandboxed", name, err)
	}
	return err
}
