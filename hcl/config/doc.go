// Package config is axon's configuration language: the host-owned schema of
// axon.hcl (axon, provider, chain, tool, display and vault blocks), where the
// file comes from, provider presets, the AXON_CHAIN shortcut, the plugin lock
// file, and diagnostics that point at the offending line.
//
// It decodes only what the host owns. The plugin-owned part of each block is
// kept as an hcl.Body and decoded later, against the schema the plugin
// reports at runtime, by DecodePluginBody.
//
// It must never read a secret: env("NAME") and file("PATH") build credential
// references that only the host resolves, lazily, when it calls a provider.
// It never starts a plugin and never opens a socket.
package config
