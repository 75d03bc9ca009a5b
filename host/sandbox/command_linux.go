package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Supported reports whether jails can be built on this system.
func Supported() error { return nil }

// Plan says which layers a jail built by this host has.
func Plan(ids IDs) Layers {
	l := Layers{In: []string{LayerUser, LayerPID, LayerMount, LayerNet, LayerIPC, LayerUTS, LayerCgroup, LayerCaps, LayerNNP, LayerSeccomp}}
	if !ids.Set {
		l.Notes = append(l.Notes, fmt.Sprintf("uid %d is the host's own inside the user namespace; the other layers hide every host file, process and socket", os.Geteuid()))
	}
	return l
}

// Process is a jailed plugin process before and after its start.
type Process struct {
	Cmd *exec.Cmd

	childFiles []*os.File // the parent's copies of what the child inherits
	status     *os.File   // read end: the init's failure text, EOF once the plugin runs
	statusText chan string
	subIDs     *IDs     // set: map these with newuidmap/newgidmap, then release the init
	release    *os.File // write end of the init's WaitFD
}

// Command opens and checks the plugin binary, prepares the grants and
// returns the process that builds the jail and runs the plugin in it.
// Nothing runs until Start.
func (j *Jail) Command() (*Process, error) {
	p := &Process{}
	ok := false
	defer func() {
		if !ok {
			p.closeChildFiles()
			if p.status != nil {
				p.status.Close()
			}
		}
	}()
	bin, err := OpenBinary(j.Binary, j.SHA256)
	if err != nil {
		return nil, err
	}
	p.childFiles = append(p.childFiles, bin)
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p.status = r
	p.childFiles = append(p.childFiles, w)
	root := os.Geteuid() == 0 && j.IDs.Set
	sub := os.Geteuid() != 0 && j.IDs.Set && j.IDs.Sub
	sp := initSpec{
		Name:       j.Name,
		Argv:       append([]string{filepath.Base(j.Binary)}, j.Args...),
		BinaryFD:   3,
		StatusFD:   4,
		Binary:     filepath.Base(j.Binary),
		BinaryPath: j.Binary,
		SwitchIDs:  root || sub,
		Loopback:   j.Loopback,
	}
	if sub {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		p.childFiles = append(p.childFiles, r)
		sp.WaitFD, sp.Sub = 2+len(p.childFiles), true
		ids := j.IDs
		p.subIDs, p.release = &ids, w
	}
	if j.SocketDir == "" {
		return nil, fmt.Errorf("sandbox: a jail needs a socket directory")
	}
	sp.RootDir = filepath.Join(j.SocketDir, ".root")
	if err := os.Mkdir(sp.RootDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	{
		if root {
			if err := os.Chown(j.SocketDir, j.IDs.UID, j.IDs.GID); err != nil {
				return nil, fmt.Errorf("socket directory: %w", err)
			}
		}
		if sub {
			// A subordinate uid cannot own a directory of ours; this one
			// sits in the host's 0700 directory, so only we and the plugin
			// can reach it.
			if err := os.Chmod(j.SocketDir, 0o777); err != nil {
				return nil, fmt.Errorf("socket directory: %w", err)
			}
		}
		sp.Mounts = append(sp.Mounts, mountSpec{Path: j.SocketDir, Mode: ReadWrite, Dir: true})
	}
	var deviceGroups []int
	for _, g := range j.Grants {
		m, gid, err := j.prepareGrant(g)
		if err != nil {
			return nil, err
		}
		sp.Mounts = append(sp.Mounts, m)
		if gid > 0 && !slices.Contains(deviceGroups, gid) {
			deviceGroups = append(deviceGroups, gid)
			sp.Groups = append(sp.Groups, 1+len(deviceGroups))
		}
	}
	env, err := json.Marshal(sp)
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{
		Path:       "/proc/self/exe",
		Args:       []string{initArg0},
		Env:        append(append([]string{}, j.Env...), specEnv+"="+string(env)),
		ExtraFiles: p.childFiles,
		Dir:        "/",
	}
	cmd.SysProcAttr = j.sysProcAttr(deviceGroups)
	p.Cmd = cmd
	ok = true
	return p, nil
}

// sysProcAttr puts the init in its namespaces as the namespace's root. A
// root host maps host root there for the setup only, and the instance's
// ids (uid and gid 1) and the groups of granted device nodes (gids 2…) for
// the plugin; an unprivileged host can map only its own ids, once.
func (j *Jail) sysProcAttr(deviceGroups []int) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET |
			syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS | unix.CLONE_NEWCGROUP,
		Credential: &syscall.Credential{Uid: 0, Gid: 0},
		Pdeathsig:  syscall.SIGKILL,
		Setsid:     true,
	}
	if os.Geteuid() != 0 && j.IDs.Set && j.IDs.Sub {
		// No map yet: the helpers write it once the child exists.
		attr.Credential = nil
		return attr
	}
	if os.Geteuid() == 0 && j.IDs.Set {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: 1, HostID: j.IDs.UID, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: 1, HostID: j.IDs.GID, Size: 1}}
		for i, g := range deviceGroups {
			attr.GidMappings = append(attr.GidMappings, syscall.SysProcIDMap{ContainerID: 2 + i, HostID: g, Size: 1})
		}
		// Drop root's supplementary groups now: setgroups needs "allow",
		// which only a privileged writer of the map may set.
		attr.GidMappingsEnableSetgroups = true
		attr.Credential.Groups = []uint32{}
		return attr
	}
	uid, gid := os.Geteuid(), os.Getegid()
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}}
	// An unprivileged writer must deny setgroups: the plugin keeps the
	// host's supplementary groups (on the Pi, spi and gpio), which open
	// only what its view holds.
	attr.Credential.NoSetGroups = true
	return attr
}

// prepareGrant checks a grant's path and, on a root host, hands a read-write
// directory to the jail's uid. It returns the mount and, for a device node
// a root host must open through its group, that group.
func (j *Jail) prepareGrant(g Grant) (mountSpec, int, error) {
	if err := g.Check(); err != nil {
		return mountSpec{}, 0, err
	}
	m := mountSpec{Path: filepath.Clean(g.Path), Mode: g.Mode}
	if g.Mode == Device && m.Path == HostTerminal {
		return j.prepareTerminal(m)
	}
	if g.Mode == ReadWrite {
		if err := os.MkdirAll(g.Path, 0o700); err != nil {
			return m, 0, fmt.Errorf("grant %s: %w", g.Path, err)
		}
	}
	st, err := os.Stat(g.Path)
	if err != nil {
		return m, 0, fmt.Errorf("grant %s: %w", g.Path, err)
	}
	m.Dir = st.IsDir()
	root := os.Geteuid() == 0 && j.IDs.Set
	switch g.Mode {
	case Device:
		if st.Mode()&fs.ModeCharDevice == 0 {
			return m, 0, fmt.Errorf("grant %s: not a character device", g.Path)
		}
		if !root {
			return m, 0, nil
		}
		sys := st.Sys().(*syscall.Stat_t)
		if st.Mode().Perm()&0o060 != 0o060 || sys.Gid == 0 {
			return m, 0, fmt.Errorf("grant %s: a root host opens a device for its plugin through the node's group, and this node is %v group %d; "+
				"give it a group of its own with mode 0660 (a udev rule, as Raspberry Pi OS does for spi and gpio)", g.Path, st.Mode().Perm(), sys.Gid)
		}
		return m, int(sys.Gid), nil
	case ReadWrite:
		if root && g.Owner {
			if err := chownTree(g.Path, j.IDs.UID, j.IDs.GID); err != nil {
				return m, 0, fmt.Errorf("grant %s: hand it to the plugin's uid %d: %w", g.Path, j.IDs.UID, err)
			}
		}
	}
	return m, 0, nil
}

// prepareTerminal shows the plugin the host's own terminal at /dev/tty. A
// root host's plugin only writes to it, through the terminal's group (tty,
// given by login), so the terminal must be writable by its group: what
// mesg y allows every other user of the machine.
func (j *Jail) prepareTerminal(m mountSpec) (mountSpec, int, error) {
	src, err := hostTerminal()
	if err != nil {
		return m, 0, fmt.Errorf("grant %s: %w", m.Path, err)
	}
	st, err := os.Stat(src)
	if err != nil {
		return m, 0, fmt.Errorf("grant %s: %w", m.Path, err)
	}
	m.Source = src
	if os.Geteuid() != 0 || !j.IDs.Set {
		return m, 0, nil // the plugin runs as the host's own user, the terminal's owner
	}
	sys := st.Sys().(*syscall.Stat_t)
	if st.Mode().Perm()&0o020 == 0 || sys.Gid == 0 {
		return m, 0, fmt.Errorf("grant %s: a root host's plugin writes to axon's terminal %s through the terminal's group, and it is %v group %d; "+
			"run mesg y in it (a login terminal is group tty), or start axon as the terminal's user", m.Path, src, st.Mode().Perm(), sys.Gid)
	}
	return m, int(sys.Gid), nil
}

// chownTree gives dir and everything under it to uid:gid, unless it already
// belongs to them.
func chownTree(dir string, uid, gid int) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if s := st.Sys().(*syscall.Stat_t); int(s.Uid) == uid && int(s.Gid) == gid {
		return nil
	}
	return filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, gid)
	})
}

// Start starts the init and drops the parent's copies of the child's files,
// so the status pipe reports EOF once the plugin runs or the init dies.
func (p *Process) Start() error {
	var err error
	if p.subIDs != nil {
		err = p.startMapped()
	} else {
		err = startDumpable(p.Cmd)
	}
	p.closeChildFiles()
	p.statusText = make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(p.status, 4096))
		p.status.Close()
		p.statusText <- string(b)
	}()
	return err
}

// startMapped starts the init unmapped, maps it into the subordinate ids
// and releases it. It needs no dumpable window: the child has executed the
// init (and so is dumpable) by the time the helpers look at it.
func (p *Process) startMapped() error {
	defer p.release.Close()
	if err := p.Cmd.Start(); err != nil {
		return err
	}
	if err := mapSubIDs(p.Cmd.Process.Pid, *p.subIDs); err != nil {
		p.Cmd.Process.Kill()
		return &LayerError{text: LayerUser + ": " + err.Error()}
	}
	_, err := p.release.Write([]byte("go"))
	return err
}

// Failure returns why the init could not build the jail, or nil when it
// did (the plugin was executed). Call it once the process has exited or
// was killed: it waits for the status pipe to close.
func (p *Process) Failure() error {
	if p.statusText == nil {
		return nil
	}
	text := <-p.statusText
	p.statusText <- text
	if text == "" {
		return nil
	}
	return &LayerError{text: text}
}

func (p *Process) closeChildFiles() {
	for _, f := range p.childFiles {
		f.Close()
	}
	p.childFiles = nil
}

// LayerError is the init's report of the layer it could not set up.
type LayerError struct{ text string }

func (e *LayerError) Error() string {
	return "sandbox: " + e.text + hint(e.text)
}

// dumpableMu serialises the starts that must lift the host's non-dumpable
// flag (HardenHost).
var dumpableMu sync.Mutex

// startDumpable starts cmd. An unprivileged host can write its child's uid
// and gid maps only while the child (a copy of the host until it execs) is
// dumpable, so such a host lifts its own non-dumpable flag for the few
// milliseconds of the start. A root host needs no such window.
func startDumpable(cmd *exec.Cmd) error {
	if os.Geteuid() == 0 {
		return cmd.Start()
	}
	dumpableMu.Lock()
	defer dumpableMu.Unlock()
	was, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil || was == 1 {
		return cmd.Start()
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0); err != nil {
		return err
	}
	defer unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	return cmd.Start()
}
