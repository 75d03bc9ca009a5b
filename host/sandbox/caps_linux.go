package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Secure bits (linux/securebits.h), not in x/sys/unix.
const (
	secbitNoroot            = 1 << 0
	secbitNorootLocked      = 1 << 1
	secbitNoSetuidFixup     = 1 << 2
	secbitNoSetuidFixupLock = 1 << 3
	secbitKeepCapsLocked    = 1 << 5
	secbitNoCapAmbientRaise = 1 << 6
	secbitNoCapAmbientLock  = 1 << 7
)

// dropPrivileges leaves the calling thread (the one that executes the
// plugin) with no capability and no way to regain one: an empty bounding
// set, no ambient set, locked secure bits that stop uid 0 from being
// granted capabilities on exec, and, when switchIDs, the jail's own ids
// (namespace uid and gid 1) with groups as its supplementary groups. Every
// call here is per thread on purpose: only this thread survives the exec.
func dropPrivileges(switchIDs bool, groups []int) error {
	for c := 0; c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if err == unix.EINVAL {
				break // past the kernel's last capability
			}
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	bits := secbitNoroot | secbitNorootLocked | secbitNoSetuidFixupLock | secbitKeepCapsLocked |
		secbitNoCapAmbientRaise | secbitNoCapAmbientLock
	if !switchIDs {
		bits |= secbitNoSetuidFixup // nothing to switch to; keep the bit locked either way
	}
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits), 0, 0, 0); err != nil {
		return fmt.Errorf("set secure bits: %w", err)
	}
	if switchIDs {
		if err := switchTo(1, 1, groups); err != nil {
			return err
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clear capability sets: %w", err)
	}
	return nil
}

// switchTo sets this thread's groups, gid and uid with raw system calls:
// Go's wrappers change every thread, and the other threads do not matter.
func switchTo(uid, gid int, groups []int) error {
	gs := make([]uint32, len(groups))
	for i, g := range groups {
		gs[i] = uint32(g)
	}
	var p unsafe.Pointer
	if len(gs) > 0 {
		p = unsafe.Pointer(&gs[0])
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETGROUPS, uintptr(len(gs)), uintptr(p), 0); e != 0 {
		return fmt.Errorf("setgroups: %w", e)
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETRESGID, uintptr(gid), uintptr(gid), uintptr(gid)); e != 0 {
		return fmt.Errorf("setresgid %d: %w", gid, e)
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETRESUID, uintptr(uid), uintptr(uid), uintptr(uid)); e != 0 {
		return fmt.Errorf("setresuid %d: %w", uid, e)
	}
	return nil
}
