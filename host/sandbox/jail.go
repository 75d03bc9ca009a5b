package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Jail is one plugin process's sandbox, as the host configures it.
type Jail struct {
	Name   string // plugin instance name: errors and the jail's hostname
	Binary string // the plugin executable
	SHA256 []byte // optional pin, checked on the opened descriptor that is then executed
	Args   []string
	Env    []string // the plugin's whole environment

	// SocketDir is the host directory the plugin's go-plugin socket is
	// created in. It is bind-mounted read-write at the same path inside the
	// jail, so the address the plugin reports is the one the host dials.
	SocketDir string

	// Grants are the only host paths the plugin sees besides the binary and
	// the runtime's read-only basics.
	Grants []Grant

	// IDs are the host uid and gid the plugin runs as. The zero value means
	// the host's own ids (an unprivileged host without subordinate ids).
	IDs IDs

	// Loopback brings up the loopback interface of the jail's own network
	// namespace and lets the plugin open IPv4 and IPv6 sockets, which can
	// reach that interface and nothing else: the jail has no other. It is
	// for the HTTPS proxy the host offers a plugin and its children on
	// 127.0.0.1 (egress { proxy = true }).
	Loopback bool
}

// IDs is a host uid/gid pair. Set is false for "the host's own". Sub
// marks an unprivileged host's subordinate ids (/etc/subuid), mapped with
// newuidmap and newgidmap.
type IDs struct {
	UID, GID int
	Set      bool
	Sub      bool
}

// Grant is one host path made visible inside a jail.
type Grant struct {
	Path  string // absolute host path, visible at the same path inside
	Mode  GrantMode
	Owner bool // read-write directories only: hand it to the plugin's uid (root host)
}

// GrantMode says how a granted path is mounted.
type GrantMode string

const (
	ReadOnly  GrantMode = "ro"
	ReadWrite GrantMode = "rw"
	Device    GrantMode = "dev" // a character device node, read-write, device access kept; "/dev/tty" is the host's terminal (HostTerminal)
)

// Check validates a grant without touching the file system.
func (g Grant) Check() error {
	switch g.Mode {
	case ReadOnly, ReadWrite, Device:
	default:
		return fmt.Errorf("grant %q: mode %q, want ro, rw or dev", g.Path, g.Mode)
	}
	if !filepath.IsAbs(g.Path) {
		return fmt.Errorf("grant %q: the path must be absolute", g.Path)
	}
	if filepath.Clean(g.Path) == "/" {
		return fmt.Errorf("grant %q: granting the whole file system defeats the sandbox; use sandbox = \"none\"", g.Path)
	}
	return nil
}

// Layer names, in the order the startup log and `axon check` print them.
const (
	LayerUser    = "user"
	LayerPID     = "pid"
	LayerMount   = "mount"
	LayerNet     = "net"
	LayerIPC     = "ipc"
	LayerUTS     = "uts"
	LayerCgroup  = "cgroup"
	LayerCaps    = "nocaps"
	LayerNNP     = "nnp"
	LayerSeccomp = "seccomp"
)

// Layers is what a jail enforces, for the startup log and `axon check`.
type Layers struct {
	In    []string // the layers in force
	Notes []string // why a layer is weaker or missing
}

func (l Layers) String() string {
	s := strings.Join(l.In, ",")
	if s == "" {
		s = "none"
	}
	if len(l.Notes) > 0 {
		s += " (" + strings.Join(l.Notes, "; ") + ")"
	}
	return s
}
