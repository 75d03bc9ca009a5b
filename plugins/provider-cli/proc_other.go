//go:build unix && !linux

package main

// waitExited cannot wait without reaping here: the group is killed only
// while the client has not yet been reaped (on cancel and timeout), not
// after a normal exit.
func waitExited(int) bool { return false }
