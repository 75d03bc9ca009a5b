package main

import (
	"path/filepath"

	"github.com/axonhq/axon/sdk"
)

// config is the plugin-owned part of a tool block.
type config struct {
	Dir string `json:"dir"`
}

// schema declares the attributes above to the host.
func schema() sdk.Schema {
	return sdk.Schema{Attributes: []sdk.Attribute{
		{Name: "dir", Type: "path", Required: true,
			Description: `Directory holding the notes, created (mode 0700) when missing. The plugin touches nothing outside it.`},
	}}
}

// parseConfig decodes the values and returns the notes directory, absolute.
func parseConfig(cfg sdk.Config) (string, error) {
	var c config
	if err := cfg.Decode(&c); err != nil {
		return "", err
	}
	dir := c.Dir
	if dir == "" {
		return "", sdk.Permanentf("dir is required: the directory the notes live in")
	}
	// dir is a path attribute: the host has expanded ~ and made it
	// absolute against the config file's directory. (Expanding here would
	// use the sandbox's HOME, not the user's.)
	if !filepath.IsAbs(dir) {
		return "", sdk.Permanentf("dir %q must be absolute: a plugin's working directory and HOME are not yours", c.Dir)
	}
	return filepath.Clean(dir), nil
}
