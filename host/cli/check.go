package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/daemon"
)

func newCheck(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Validate the configuration, the plugins and the lock file",
		Long: "check loads the configuration, then starts every plugin once to check its " +
			"binary (and sha256 pin), its kind and its configuration block against the schema " +
			"the plugin declares. It reports every problem with file and line, and exits 1 if any.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return g.check(cmd.Context()) },
	}
}

func (g *globals) check(ctx context.Context) error {
	cfg, lock, err := g.load()
	if err != nil {
		return err
	}
	logger := g.logger()
	logger.SetLevel(hclogLevelQuiet)
	b, err := daemon.New(cfg, lock, logger, daemon.Options{})
	if err != nil {
		fmt.Fprintln(g.stderr, "axon:", err)
		return errReported
	}
	defer b.Close()
	failed := 0
	for _, pb := range cfg.PluginBlocks() {
		in, _ := b.Supervisor().Instance(pb.Name)
		info, err := in.Info(ctx)
		if err != nil {
			failed++
			var ce *daemon.ConfigError
			if errors.As(err, &ce) {
				config.WriteDiagnostics(g.stderr, g.files, ce.Diags)
			} else {
				fmt.Fprintf(g.stderr, "%s %q: %v\n", pb.Kind, pb.Name, err)
			}
			continue
		}
		fmt.Fprintf(g.stdout, "ok  %-8s %-16s %s %s\n", pb.Kind, pb.Name, pb.Binary(), info.Version)
		fmt.Fprintf(g.stdout, "    sandbox: %s\n", in.Layers())
	}
	if failed > 0 {
		fmt.Fprintf(g.stderr, "%d of %d plugin blocks failed\n", failed, len(cfg.PluginBlocks()))
		return errReported
	}
	fmt.Fprintf(g.stdout, "configuration %s is valid: %d providers, %d chains, %d tools, %d displays\n",
		cfg.Source, len(cfg.Providers), len(cfg.Chains), len(cfg.Tools), len(cfg.Displays))
	return nil
}
