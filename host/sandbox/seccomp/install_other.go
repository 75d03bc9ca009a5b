//go:build !linux

package seccomp

import (
	"fmt"
	"runtime"
)

// Install sets no_new_privs and loads the plugin filter on every thread of
// the calling process (TSYNC). It never returns nil unless the filter is in
// force: on this system there is no seccomp, so it always fails.
func Install() error {
	return fmt.Errorf("seccomp: system-call filters need Linux; %s has none, so a plugin cannot be confined here", runtime.GOOS)
}

// InstallWith is Install with the filter widened by o; it always fails here.
func InstallWith(Options) error { return Install() }
