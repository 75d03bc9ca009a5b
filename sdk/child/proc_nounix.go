//go:build !unix

package child

import "syscall"

// Off unix there are no process groups: the child alone is killed (by
// exec's context), not what it started.
func OwnGroup() *syscall.SysProcAttr { return nil }

func KillGroup(int) {}

func Signalled(any) (string, bool) { return "", false }

func WaitExited(int) bool { return false }

func exitedChild() int { return 0 }

func reapChild(int) bool { return false }
