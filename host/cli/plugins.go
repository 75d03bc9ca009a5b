package cli

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/sandbox"
	"github.com/axonhq/axon/host/supervisor"
	"github.com/axonhq/axon/sdk"
)

func newPlugins(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugins",
		Short: "List the plugin binaries in the plugin directory: kind, version, path, sha256",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return g.listPlugins(cmd.Context()) },
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "lock",
		Short: "Write axon.lock.hcl: the sha256 of every plugin binary the configuration uses",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return g.lockPlugins() },
	})
	return cmd
}

func (g *globals) listPlugins(ctx context.Context) error {
	cfg, _, err := g.load()
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(cfg.Axon.PluginDir)
	if err != nil {
		return fmt.Errorf("plugin dir: %w", err)
	}
	logger := g.logger().Named("plugins")
	logger.SetLevel(hclogLevelQuiet) // each probe's start and exit are not news here
	w := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tKIND\tVERSION\tPATH\tSHA256")
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "axon-") && !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		path := filepath.Join(cfg.Axon.PluginDir, n)
		kind, _, _ := strings.Cut(strings.TrimPrefix(n, "axon-"), "-")
		sum, err := fileSHA256(path)
		if err != nil {
			return err
		}
		version, name := "?", n
		info, err := supervisor.Probe(ctx, logger, supervisor.Spec{Name: n, Kind: sdk.Kind(kind), Path: path, Sandbox: supervisor.Sandbox(cfg.Axon.Sandbox)}, supervisor.IDRange(cfg.Axon.PluginIDs))
		if err != nil {
			version = "error: " + err.Error()
		} else {
			version, name, kind = info.Version, info.Name, string(info.Kind)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", name, kind, version, path, sum)
	}
	return w.Flush()
}

func (g *globals) lockPlugins() error {
	cfg, _, err := g.load()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var entries []config.LockEntry
	for _, b := range cfg.PluginBlocks() {
		if seen[b.Binary()] {
			continue
		}
		seen[b.Binary()] = true
		sum, err := fileSHA256(cfg.PluginPath(b))
		if err != nil {
			return err
		}
		entries = append(entries, config.LockEntry{Binary: b.Binary(), SHA256: sum})
	}
	// The built-in configuration keeps its lock in the state directory,
	// which a fresh machine does not have yet.
	if err := os.MkdirAll(filepath.Dir(cfg.LockPath()), 0o750); err != nil {
		return err
	}
	if err := config.WriteLock(cfg.LockPath(), entries); err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "wrote %s (%d plugins)\n", cfg.LockPath(), len(entries))
	return nil
}

// fileSHA256 is the binary's pin as written in a plugin block or the lock
// file: the digest the supervisor checks at start, hex-encoded.
func fileSHA256(path string) (string, error) {
	sum, err := sandbox.Digest(path)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(sum), nil
}
