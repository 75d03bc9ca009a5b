//go:build crashatstart

package main

// crashAtStart makes the binary exit before its handshake, every time: the
// host's tests use it as a plugin that crash-loops.
const crashAtStart = true
