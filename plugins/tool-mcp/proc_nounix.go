//go:build !unix

package main

import "syscall"

// Off unix there are no process groups: the server alone is killed (by
// exec's context), not what it started.
func ownGroup() *syscall.SysProcAttr { return nil }

func killGroup(int) {}

func waitExited(int) bool { return false }

func exitedChild() int { return 0 }

func reapChild(int) bool { return false }
