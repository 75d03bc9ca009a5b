package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
)

// SubIDs is the block of subordinate ids /etc/subuid and /etc/subgid give
// the host's user: an unprivileged host maps its plugins into them with
// the setuid helpers newuidmap and newgidmap, as rootless containers do.
type SubIDs struct {
	UID, GID, Count int
}

// LookupSubIDs finds the host user's subordinate ids and the helpers that
// map them. The error says what is missing.
func LookupSubIDs() (SubIDs, error) {
	if noNewPrivs() {
		return SubIDs{}, fmt.Errorf("no_new_privs is set on axon (systemd NoNewPrivileges=yes), so the setuid newuidmap cannot run")
	}
	for _, helper := range []string{"newuidmap", "newgidmap"} {
		if _, err := exec.LookPath(helper); err != nil {
			return SubIDs{}, fmt.Errorf("%s is not installed (Debian package uidmap)", helper)
		}
	}
	u, err := user.LookupId(strconv.Itoa(os.Geteuid()))
	if err != nil {
		return SubIDs{}, err
	}
	uid, ucount, err := subRange("/etc/subuid", u.Username, u.Uid)
	if err != nil {
		return SubIDs{}, err
	}
	gid, gcount, err := subRange("/etc/subgid", u.Username, u.Uid)
	if err != nil {
		return SubIDs{}, err
	}
	return SubIDs{UID: uid, GID: gid, Count: min(ucount, gcount)}, nil
}

// subRange reads the first "name:start:count" (or "uid:start:count") line
// of file for the user.
func subRange(file, name, uid string) (int, int, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", file, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(strings.TrimSpace(sc.Text()), ":")
		if len(fields) != 3 || (fields[0] != name && fields[0] != uid) {
			continue
		}
		start, err1 := strconv.Atoi(fields[1])
		count, err2 := strconv.Atoi(fields[2])
		if err1 == nil && err2 == nil && start > 0 && count > 0 {
			return start, count, nil
		}
	}
	return 0, 0, fmt.Errorf("%s has no range for %s", file, name)
}

// mapSubIDs writes the jail's maps with the setuid helpers: the host's
// own uid as the namespace's root (the setup, which opens the host's
// paths), the instance's subordinate ids as the plugin's 1. The host's gid
// is not mapped: newgidmap would then deny setgroups, and the plugin would
// keep the host's supplementary groups.
func mapSubIDs(pid int, ids IDs) error {
	p := strconv.Itoa(pid)
	for _, cmd := range [][]string{
		{"newuidmap", p, "0", strconv.Itoa(os.Geteuid()), "1", "1", strconv.Itoa(ids.UID), "1"},
		{"newgidmap", p, "1", strconv.Itoa(ids.GID), "1"},
	} {
		if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v: %s", cmd[0], err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}

// noNewPrivs reports whether this process may no longer gain privileges
// through a setuid binary.
func noNewPrivs() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == "NoNewPrivs" {
			return strings.TrimSpace(v) == "1"
		}
	}
	return false
}
