package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"

	"github.com/axonhq/axon/host/sandbox/seccomp"
	"golang.org/x/sys/unix"
)

// The init runs before main in any binary that links this package (the
// host, and the test binaries that start plugins): the host re-executes
// itself with argv[0] = initArg0 inside fresh namespaces.
func init() {
	if len(os.Args) > 0 && os.Args[0] == initArg0 {
		runInit()
	}
}

// layerError names the layer a step belongs to.
type layerError struct {
	layer string
	err   error
}

func (e *layerError) Error() string { return e.layer + ": " + e.err.Error() }

func inLayer(layer string, err error) error {
	if err == nil {
		return nil
	}
	return &layerError{layer: layer, err: err}
}

// runInit builds the jail from inside its namespaces and executes the
// plugin. It never returns: the process becomes the plugin, or exits after
// writing the failed layer to the status pipe.
func runInit() {
	runtime.LockOSThread() // capabilities and no_new_privs are per thread: this one execs
	var sp initSpec
	if err := json.Unmarshal([]byte(os.Getenv(specEnv)), &sp); err != nil {
		fmt.Fprintf(os.Stderr, "axon-sandbox-init: bad instructions: %v\n", err)
		os.Exit(126)
	}
	status := os.NewFile(uintptr(sp.StatusFD), "status")
	fail := func(err error) {
		fmt.Fprintf(status, "%v", err)
		os.Exit(126)
	}
	if sp.WaitFD > 0 {
		fail(inLayer(LayerUser, awaitMaps(sp)))
	}
	unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0) // the second exec may have reset it
	if sp.Sub {
		// The host's own gid is not mapped, and the kernel refuses to create
		// a file whose group it cannot represent: take the jail's gid for the
		// setup, and no supplementary group.
		if err := syscall.Setgroups([]int{}); err != nil {
			fail(inLayer(LayerUser, fmt.Errorf("setgroups: %w", err)))
		}
		if err := syscall.Setresgid(1, 1, 1); err != nil {
			fail(inLayer(LayerUser, fmt.Errorf("setresgid: %w", err)))
		}
		unix.Umask(0) // the host, another uid, must be able to connect to the plugin's socket
	}
	if err := inLayer(LayerUTS, unix.Sethostname([]byte("axon-plugin"))); err != nil {
		fail(err)
	}
	if err := buildView(&sp); err != nil {
		fail(err)
	}
	if sp.Loopback {
		if err := inLayer(LayerNet, loopbackUp()); err != nil {
			fail(err)
		}
	}
	// Nothing the host passed may reach the plugin but the binary it runs.
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		fail(inLayer(LayerMount, fmt.Errorf("close inherited descriptors: %w", err)))
	}
	if err := inLayer(LayerCaps, dropPrivileges(sp.SwitchIDs, sp.Groups)); err != nil {
		fail(err)
	}
	// Die with the host even if a credential change above reset it.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		fail(inLayer(LayerPID, fmt.Errorf("parent death signal: %w", err)))
	}
	if err := inLayer(LayerSeccomp, seccomp.InstallWith(seccomp.Options{Inet: sp.Loopback})); err != nil {
		fail(err)
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, specEnv+"=") {
			env = append(env, kv)
		}
	}
	fd, err := checkedBinary(sp)
	if err != nil {
		fail(inLayer(LayerMount, err))
	}
	fail(fmt.Errorf("exec %s: %w", sp.Binary, execFD(fd, sp.Argv, env)))
}

// awaitMaps waits until the host has mapped this unmapped init into its
// subordinate ids, then executes the init again, now as the namespace's
// root with its capabilities. It returns only on failure.
func awaitMaps(sp initSpec) error {
	buf := make([]byte, 2)
	if _, err := io.ReadFull(os.NewFile(uintptr(sp.WaitFD), "release"), buf); err != nil || string(buf) != "go" {
		os.Exit(126) // the host gave up on this start and says why itself
	}
	unix.Close(sp.WaitFD)
	sp.WaitFD = 0
	b, err := json.Marshal(sp)
	if err != nil {
		return err
	}
	env := []string{specEnv + "=" + string(b)}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, specEnv+"=") {
			env = append(env, kv)
		}
	}
	return syscall.Exec("/proc/self/exe", os.Args, env)
}

// checkedBinary opens the binary's bind mount inside the jail and makes
// sure it is the very file the host opened and checked (same device and
// inode as the inherited descriptor). Executing through the jail's own
// mount lets the plugin find itself at /plugin/<name> (/proc/self/exe).
func checkedBinary(sp initSpec) (int, error) {
	inJail := "/plugin/" + sp.Binary
	fd, err := unix.Open(inJail, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	var a, b unix.Stat_t
	if err := unix.Fstat(fd, &a); err != nil {
		return -1, err
	}
	if err := unix.Fstat(sp.BinaryFD, &b); err != nil {
		return -1, err
	}
	if a.Dev != b.Dev || a.Ino != b.Ino {
		return -1, fmt.Errorf("%s was replaced after the host checked it", sp.BinaryPath)
	}
	return fd, nil
}

// execFD executes the open file fd (execveat with AT_EMPTY_PATH), whatever
// its path now names.
func execFD(fd int, argv, env []string) error {
	empty, err := syscall.BytePtrFromString("")
	if err != nil {
		return err
	}
	argvp, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return err
	}
	envp, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return err
	}
	_, _, errno := syscall.Syscall6(unix.SYS_EXECVEAT, uintptr(fd), uintptr(unsafe.Pointer(empty)),
		uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])), unix.AT_EMPTY_PATH, 0)
	return errno
}

// loopbackUp brings up lo, the one interface of the jail's new network
// namespace (it starts down). The init still holds the namespace's
// CAP_NET_ADMIN here.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: socket: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback: read lo's flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback: bring lo up: %w", err)
	}
	return nil
}
