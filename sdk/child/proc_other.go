//go:build unix && !linux

package child

// WaitExited cannot wait without reaping here: the group is killed only
// while the child has not yet been reaped (on cancel and timeout), not
// after a normal exit.
func WaitExited(int) bool { return false }

// Orphans are not swept here: the sandbox that makes the plugin an init is
// Linux's.
func exitedChild() int { return 0 }

func reapChild(int) bool { return false }
