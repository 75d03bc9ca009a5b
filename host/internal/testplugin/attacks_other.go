//go:build !linux

package main

import (
	"fmt"
	"runtime"
)

// The attacks are Linux system calls; elsewhere the verb only says so.
var attacks = map[string]attack{}

func noSuchAttack(name string) string {
	return fmt.Sprintf("unsupported: attack %q needs linux, this is %s", name, runtime.GOOS)
}

func grandchildMain([]string) { fmt.Println(noSuchAttack("grandchild")) }

const grandchildArg = "grandchild-sleep"
