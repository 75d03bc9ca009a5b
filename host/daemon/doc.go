// Package daemon assembles a running axon from a loaded configuration: one
// supervised plugin instance per provider, tool and display block, each
// provider granted its own egress; the chains; the faces on the displays;
// the metrics. It is what `axon ask` and `axon run` run, and it implements
// the front door's Backend. NewFrontDoor is the one place `axon serve` is
// assembled: the daemon, its metrics, its sessions and the front door over
// them, behind one token check.
//
// It holds no credential: blocks carry references, resolved by the egress
// of the instance they are granted to, at request time.
package daemon
