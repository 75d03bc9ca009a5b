// Package supervisor owns every plugin process of the host: one process per
// configured plugin instance, started lazily, hardened at launch (no host
// environment, AutoMTLS, gRPC only, an optional sha256 pin, and on Linux a
// fresh network namespace), configured with its own Egress service, pinged
// for health, restarted with backoff after a crash, stopped when idle for
// its Spec.IdleStop (never with a call in flight; the next call starts it
// again, without backoff), and killed on Close.
// A call never waits for that backoff: it is refused at once with
// ErrPluginRestarting, so the chain falls back. A call whose plugin dies
// under it ends with sdk.ErrPluginExited.
//
// It never uses go-plugin's global Managed list: each *plugin.Client is owned
// by exactly one Instance, which kills it before dropping it.
package supervisor
