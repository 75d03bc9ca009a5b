package supervisor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/axonhq/axon/host/sandbox"
	"github.com/axonhq/axon/internal/pluginrpc"
)

// Plugin profiles (Options.ProfileDir, set by `axon serve --plugin-profiles
// DIR`): each plugin process gets pluginrpc.ProfileDirEnv naming a
// directory of its own, DIR/<instance>, which its jail mounts read-write,
// and sdk/serve writes cpu.pprof, allocs.pprof and metrics.txt (the
// runtime's memory figures) there when the process stops (a restarted
// instance overwrites them). Off by default. The directory is the only
// thing profiling adds to a jail: the ids, namespaces and seccomp policy
// are decided without it (it is not one of Spec.Grants, so
// writesHostFiles never sees it).

// PrepareProfileDir returns dir made absolute, creating it (0700) when
// missing. It refuses a directory other users can enter: the instances'
// directories inside it are writable by the plugins' ids, which on an
// unprivileged host with subordinate ids means by anyone who can reach them.
func PrepareProfileDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", fmt.Errorf("plugin profile directory: %w", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("plugin profile directory: %w", err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("plugin profile directory %s is not a directory", abs)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("plugin profile directory %s is open to other users (mode %04o); give a new path or a private (0700) directory", abs, st.Mode().Perm())
	}
	return abs, nil
}

// pluginProfile is what one plugin process needs to write its profiles.
type pluginProfile struct {
	env    []string
	grants []sandbox.Grant
}

// profile prepares the directory of instance name, or returns nothing when
// profiling is off. ids are the jail's: a subordinate uid cannot own a
// directory of the host user's, so the directory is opened to all inside
// the private profile directory, as the socket directory is.
func (o *Options) profile(name string, ids sandbox.IDs) (pluginProfile, error) {
	if o.ProfileDir == "" {
		return pluginProfile{}, nil
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return pluginProfile{}, fmt.Errorf("plugin profile: instance name %q is not a directory name", name)
	}
	dir := filepath.Join(o.ProfileDir, name)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return pluginProfile{}, fmt.Errorf("plugin profile: %w", err)
	}
	if ids.Sub {
		if err := os.Chmod(dir, 0o777); err != nil {
			return pluginProfile{}, fmt.Errorf("plugin profile: %w", err)
		}
	}
	return pluginProfile{
		env:    []string{pluginrpc.ProfileDirEnv + "=" + dir},
		grants: []sandbox.Grant{{Path: dir, Mode: sandbox.ReadWrite, Owner: true}},
	}, nil
}
