package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// HardenHost makes the host process non-dumpable: no process of the same
// uid can ptrace it or read its memory, environment or descriptors through
// /proc, and it leaves no core dump holding a key. The host calls it first
// thing; plugins started afterwards are unaffected (exec resets it).
func HardenHost() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE, 0): %w", err)
	}
	return nil
}
