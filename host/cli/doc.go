// Package cli is the `axon` command line: serve, ask, check, plugins,
// plugins lock, token and version. Every command takes --config. The main
// package only calls Execute, so the commands run in tests exactly as users
// run them.
package cli
