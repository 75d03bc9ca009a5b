package sandbox

// The host re-executes its own binary with this argv[0]; the init recognises
// itself by it (see init_linux.go).
const initArg0 = "axon-sandbox-init"

// specEnv carries the init's instructions (initSpec as JSON). The init
// removes it before the plugin runs.
const specEnv = "AXON_SANDBOX_INIT"

// initSpec is what the host tells the init: which inherited descriptors are
// what, and where each mount goes.
type initSpec struct {
	Name       string
	Argv       []string
	Binary     string // base name, for errors
	BinaryPath string // host path: bound read-only at /plugin/<Binary>
	BinaryFD   int
	StatusFD   int
	Mounts     []mountSpec
	RootDir    string // empty host directory the jail's root tmpfs is mounted on

	// SwitchIDs: a root host maps host root to the namespace's uid 0 for the
	// setup only (to open the granted paths); the plugin then runs as
	// namespace uid and gid 1, the instance's own host ids, with Groups
	// (namespace gids of granted device nodes) as its supplementary groups.
	SwitchIDs bool
	Groups    []int

	// WaitFD (subordinate ids): the init starts unmapped and without
	// capabilities, waits for "go" on this descriptor (the host has run
	// newuidmap and newgidmap), then executes itself again as the
	// namespace's root.
	WaitFD int
	Sub    bool // subordinate ids: the plugin's files must be reachable by the host's other uid

	Loopback bool // Jail.Loopback: lo up, and the filter allows IPv4/IPv6 sockets
}

// mountSpec is one bind mount of a host path at the same path inside, or
// of Source at Path (the host's terminal at /dev/tty).
type mountSpec struct {
	Path   string
	Source string // empty: Path
	Mode   GrantMode
	Dir    bool
}
