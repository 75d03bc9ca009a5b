// Package daemon assembles a running axon from a loaded configuration: one
// supervised plugin instance per provider, tool and display block, each
// provider granted its own egress; the chains; the faces on the displays;
// the metrics. It is what `axon serve` and `axon ask` run, and it implements
// the front door's Backend.
//
// It holds no credential: blocks carry references, resolved by the egress
// of the instance they are granted to, at request time.
package daemon
