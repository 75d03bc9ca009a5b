package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The jail's file view is built on a fresh tmpfs mounted, in the init's
// private mount namespace, on an empty directory of the host's (RootDir,
// inside the socket directory), then made the root with pivot_root, which
// detaches the host's whole tree.

// basics are read-only host paths every Go program may need: CA
// certificates (Go reads /etc/ssl/certs; Debian's entries are symlinks into
// /usr/share/ca-certificates) and time zones. Missing ones are skipped.
var basics = []string{
	"/etc/ssl/certs",
	"/usr/share/ca-certificates",
	"/etc/pki/tls/certs",
	"/usr/share/zoneinfo",
}

// libraries are the shared-library directories a dynamically linked plugin
// needs (first-party plugins are static); symlinks are recreated as such.
var libraries = []string{"/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32", "/etc/ld.so.cache"}

// devices are the host device nodes every jail gets.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

const (
	rootTmpfs = "mode=0755,size=1m,nr_inodes=4096"
	devTmpfs  = "mode=0755,size=64k,nr_inodes=64"
	tmpTmpfs  = "mode=0700,size=64m,nr_inodes=16384" // the plugin's private /tmp; bounded: it is RAM
)

func buildView(sp *initSpec) error {
	newRoot := sp.RootDir
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return inLayer(LayerMount, fmt.Errorf("make mounts private: %w", err))
	}
	if err := unix.Mount("tmpfs", newRoot, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, rootTmpfs); err != nil {
		return inLayer(LayerMount, fmt.Errorf("mount the jail's root: %w", err))
	}
	at := func(p string) string { return filepath.Join(newRoot, p) }
	steps := []func() error{
		func() error {
			data := tmpTmpfs
			if sp.SwitchIDs {
				data += ",uid=1,gid=1" // the plugin's own ids, not the setup's root
			}
			return mountTmpfs(at("/tmp"), unix.MS_NOSUID|unix.MS_NODEV, data)
		},
		func() error { return buildDev(at("/dev")) },
		func() error {
			for _, p := range basics {
				if _, err := os.Stat(p); err != nil {
					continue
				}
				if err := bindPath(p, at(p), true, ReadOnly); err != nil {
					return err
				}
			}
			for _, p := range libraries {
				if err := mirror(p, at(p)); err != nil {
					return err
				}
			}
			return mirror("/etc/localtime", at("/etc/localtime"))
		},
		func() error {
			// For a plugin that looks at its own file; what runs is the
			// checked descriptor (execveat), not this path.
			return bindPath(sp.BinaryPath, at("/plugin/"+sp.Binary), false, ReadOnly)
		},
		func() error {
			for _, m := range sp.Mounts {
				src := m.Path
				if m.Source != "" {
					src = m.Source
				}
				if err := bindPath(src, at(m.Path), m.Dir, m.Mode); err != nil {
					return fmt.Errorf("grant %s: %w", m.Path, err)
				}
			}
			return nil
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return inLayer(LayerMount, err)
		}
	}
	if err := os.MkdirAll(at("/proc"), 0o555); err != nil {
		return inLayer(LayerPID, err)
	}
	if err := unix.Mount("proc", at("/proc"), "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return inLayer(LayerPID, fmt.Errorf("mount a /proc of the jail's own PID namespace: %w", err))
	}
	if err := unix.Mount("", newRoot, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return inLayer(LayerMount, fmt.Errorf("make the jail's root read-only: %w", err))
	}
	return inLayer(LayerMount, pivot(newRoot))
}

// pivot makes dir the root and detaches the host's whole tree.
func pivot(dir string) error {
	if err := unix.Chdir(dir); err != nil {
		return err
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detach the host's root: %w", err)
	}
	return unix.Chdir("/")
}

func mountTmpfs(dir string, flags uintptr, data string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", flags, data); err != nil {
		return fmt.Errorf("mount tmpfs on %s: %w", dir, err)
	}
	return nil
}

// buildDev is a small read-only /dev: the null, zero, full and random
// nodes bound from the host's, and the usual /proc/self/fd links.
func buildDev(dir string) error {
	if err := mountTmpfs(dir, unix.MS_NOSUID|unix.MS_NOEXEC, devTmpfs); err != nil {
		return err
	}
	for _, d := range devices {
		if err := bindPath(d, filepath.Join(dir, filepath.Base(d)), false, Device); err != nil {
			return err
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// mirror shows the host path p at target read-only: a symlink is
// recreated as the same symlink, anything else is bound. A missing path is
// skipped.
func mirror(p, target string) error {
	st, err := os.Lstat(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.Mode()&os.ModeSymlink != 0 {
		link, err := os.Readlink(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.Symlink(link, target)
	}
	return bindPath(p, target, st.IsDir(), ReadOnly)
}

// bindPath bind-mounts the host path src at target and applies mode:
// read-only or read-write, never set-uid, device access only for device
// grants.
func bindPath(src, target string, dir bool, mode GrantMode) error {
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := makeMountpoint(target, dir || st.IsDir()); err != nil {
		return err
	}
	if err := unix.Mount(src, target, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind %s: %w", src, err)
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(target, &fs); err != nil {
		return err
	}
	// A remount must keep every flag the host's mount has (the kernel locks
	// them in a less privileged namespace), and may only add restrictions.
	flags := uintptr(unix.MS_REMOUNT|unix.MS_BIND|unix.MS_NOSUID) | lockedFlags(fs.Flags)
	switch mode {
	case ReadOnly:
		flags |= unix.MS_RDONLY | unix.MS_NODEV
	case ReadWrite:
		flags |= unix.MS_NODEV
	case Device:
		flags |= unix.MS_NOEXEC
	}
	if err := unix.Mount("", target, "", flags, ""); err != nil {
		return fmt.Errorf("remount %s %s: %w", src, mode, err)
	}
	return nil
}

func lockedFlags(statfs int64) uintptr {
	var f uintptr
	for st, ms := range map[int64]uintptr{
		unix.ST_RDONLY: unix.MS_RDONLY, unix.ST_NOSUID: unix.MS_NOSUID, unix.ST_NODEV: unix.MS_NODEV,
		unix.ST_NOEXEC: unix.MS_NOEXEC, unix.ST_NOATIME: unix.MS_NOATIME, unix.ST_NODIRATIME: unix.MS_NODIRATIME,
		unix.ST_RELATIME: unix.MS_RELATIME,
	} {
		if statfs&st != 0 {
			f |= ms
		}
	}
	return f
}

func makeMountpoint(target string, dir bool) error {
	if dir {
		return os.MkdirAll(target, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}
