package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// HostTerminal is the device grant that shows a plugin the terminal axon
// itself runs in. /dev/tty names the caller's controlling terminal, and a
// jailed plugin, in a session of its own, has none; so the jail gets the
// host's terminal device (such as /dev/pts/3) bound at /dev/tty instead.
const HostTerminal = "/dev/tty"

// hostTerminal returns the device node of the host's controlling terminal.
func hostTerminal() (string, error) {
	f, err := os.OpenFile(HostTerminal, os.O_WRONLY|unix.O_NOCTTY, 0)
	if errors.Is(err, syscall.ENXIO) {
		return "", fmt.Errorf("axon has no terminal to show the plugin: it was not started from one (under systemd it never is); " +
			"point the plugin at a file or another device instead (the term display's tty) and grant that")
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	dev, err := unix.IoctlGetUint32(int(f.Fd()), unix.TIOCGDEV)
	if err != nil {
		return "", fmt.Errorf("which device is axon's terminal: %w", err)
	}
	major, minor := unix.Major(uint64(dev)), unix.Minor(uint64(dev))
	for _, dir := range []string{"/dev/pts", "/dev"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			var st unix.Stat_t
			if p == HostTerminal || unix.Lstat(p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
				continue
			}
			if unix.Major(st.Rdev) == major && unix.Minor(st.Rdev) == minor {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("axon's terminal (device %d:%d) has no node in /dev or /dev/pts", major, minor)
}
