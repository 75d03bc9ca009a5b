package config

import (
	"path/filepath"

	"github.com/axonhq/axon/sdk"
)

// BinaryName is the executable name of a plugin: axon-<kind>-<plugin>, e.g.
// plugin = "anthropic" in a provider block is "axon-provider-anthropic".
func BinaryName(kind sdk.Kind, plugin string) string {
	return "axon-" + string(kind) + "-" + plugin
}

// PluginPath is where the binary of a plugin lives in dir.
func PluginPath(dir string, kind sdk.Kind, plugin string) string {
	return filepath.Join(dir, BinaryName(kind, plugin))
}

// PluginPath is where the binary of b lives in this configuration's
// plugin_dir.
func (c *Config) PluginPath(b *PluginBlock) string {
	return PluginPath(c.Axon.PluginDir, b.Kind, b.Plugin)
}
