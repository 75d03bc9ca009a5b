package main

import (
	"os"
	"path/filepath"
	"strings"

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
	if rest, ok := strings.CutPrefix(dir, "~/"); ok || dir == "~" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", sdk.Permanentf("dir %q: %v", c.Dir, err)
		}
		dir = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(dir) {
		return "", sdk.Permanentf("dir %q must be absolute (or start with ~/): a plugin's working directory is not yours", c.Dir)
	}
	return filepath.Clean(dir), nil
}
