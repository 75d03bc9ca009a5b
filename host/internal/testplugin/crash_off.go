//go:build !crashatstart

package main

// crashAtStart: see crash_on.go.
const crashAtStart = false
