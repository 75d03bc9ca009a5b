package config

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/axonhq/axon/hcl/internal/suggest"
)

// InstalledPlugins lists the plugin binaries in dir: the names of its
// regular files (or links) that start with "axon-", sorted. A missing
// directory lists nothing; any other read error is returned.
func InstalledPlugins(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "axon-") && !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// CheckPluginBinaries reports, as an error on the plugin attribute (or the
// block header, when the name comes from the label or a preset), every
// plugin block whose binary is not among installed, the binary names in
// plugin_dir (InstalledPlugins). The detail suggests the closest installed
// plugin of the same kind.
func (c *Config) CheckPluginBinaries(installed []string) hcl.Diagnostics {
	have := map[string]bool{}
	for _, n := range installed {
		have[n] = true
	}
	var diags hcl.Diagnostics
	for _, b := range c.PluginBlocks() {
		if b.Plugin == "" || have[b.Binary()] {
			continue
		}
		prefix := BinaryName(b.Kind, "")
		var same []string
		for _, n := range installed {
			if name, ok := strings.CutPrefix(n, prefix); ok && name != "" {
				same = append(same, name)
			}
		}
		detail := fmt.Sprintf("%s %q uses plugin %q, but there is no %s in plugin_dir %s.",
			b.Kind, b.Name, b.Plugin, b.Binary(), c.Axon.PluginDir)
		if s := suggest.Name(b.Plugin, same); s != "" {
			detail += fmt.Sprintf(" Did you mean %q?", s)
		} else if len(same) > 0 {
			detail += fmt.Sprintf(" Installed %s plugins: %s.", b.Kind, strings.Join(same, ", "))
		} else {
			detail += fmt.Sprintf(" No %s plugin is installed there.", b.Kind)
		}
		rng := b.PluginRange
		if rng == (hcl.Range{}) {
			rng = b.DefRange
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Plugin not installed",
			Detail:   detail,
			Subject:  rng.Ptr(),
		})
	}
	return diags
}
