package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/credential"
	"github.com/axonhq/axon/host/daemon"
	"github.com/axonhq/axon/sdk"
)

func newCheck(g *globals) *cobra.Command {
	var probe probeFlags
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Validate the configuration, the plugins and the lock file",
		Long: "check loads the configuration, checks that every plugin binary is installed, " +
			"resolves every credential reference (never printing it), then starts every plugin " +
			"once to check its binary (and sha256 pin), its kind and its configuration block " +
			"against the schema the plugin declares. A display plugin is asked only for its schema, " +
			"never configured: check opens no panel and draws nothing. It reports every problem with file and line: " +
			"a missing credential is a warning, anything else an error, and it exits 1 on any error.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return g.check(cmd.Context(), probe) },
	}
	probe.register(cmd)
	return cmd
}

func (g *globals) check(ctx context.Context, probe probeFlags) error {
	cfg, lock, err := g.load()
	if err != nil {
		return err
	}
	warnings := g.checkCredentials(cfg)
	logger := g.logger()
	logger.SetLevel(hclogLevelQuiet)
	// No faces: they would configure the displays (opening their panels,
	// under a running daemon's nose) to draw on them.
	b, err := daemon.New(cfg, lock, logger, daemon.Options{NoFaces: true})
	if err != nil {
		fmt.Fprintln(g.stderr, "axon:", err)
		return errReported
	}
	defer b.Close()
	pf, err := g.preflight(ctx, cfg, lock, b.Supervisor(), logger, true)
	if err != nil {
		return err
	}
	failed := pf.missing + pf.failed
	for _, pb := range cfg.PluginBlocks() {
		info, ok := pf.infos[pb]
		if !ok {
			continue // reported by the preflight
		}
		in, _ := b.Supervisor().Instance(pb.Name)
		note := ""
		if pb.Kind == sdk.KindDisplay {
			note = " (not opened)" // inspected, never configured
		} else if info, err = in.Info(ctx); err != nil {
			failed++
			var ce *daemon.ConfigError
			if errors.As(err, &ce) {
				config.WriteDiagnostics(g.stderr, g.files, ce.Diags)
			} else {
				fmt.Fprintf(g.stderr, "%s %q: %v\n", pb.Kind, pb.Name, err)
			}
			continue
		}
		fmt.Fprintf(g.stdout, "ok  %-8s %-16s %s %s%s\n", pb.Kind, pb.Name, pb.Binary(), info.Version, note)
		fmt.Fprintf(g.stdout, "    sandbox: %s\n", in.Layers())
		for _, line := range clientLines(cfg, pb) {
			fmt.Fprintf(g.stdout, "    %s\n", line)
		}
		if p := cfg.Provider(pb.Name); p != nil && pb.Kind == sdk.KindProvider {
			fmt.Fprintf(g.stdout, "    routing: %s\n", routingLine(cfg, p))
		}
	}
	if failed > 0 {
		fmt.Fprintf(g.stderr, "%d of %d plugin blocks failed%s\n", failed, len(cfg.PluginBlocks()), warningNote(warnings))
		return errReported
	}
	verdict := "is valid"
	if warnings > 0 {
		verdict = fmt.Sprintf("is valid with %s (see above)", plural(warnings, "warning"))
	}
	fmt.Fprintf(g.stdout, "configuration %s %s: %d providers, %d chains, %d tools, %d displays\n",
		cfg.Source, verdict, len(cfg.Providers), len(cfg.Chains), len(cfg.Tools), len(cfg.Displays))
	return g.probe(ctx, cfg, b, probe)
}

// checkBinaries prints, as errors with file and line, every plugin block
// whose binary is not in plugin_dir, and returns those blocks.
func (g *globals) checkBinaries(cfg *config.Config) (map[*config.PluginBlock]bool, error) {
	installed, err := config.InstalledPlugins(cfg.Axon.PluginDir)
	if err != nil {
		return nil, fmt.Errorf("plugin dir: %w", err)
	}
	diags := cfg.CheckPluginBinaries(installed)
	if len(diags) == 0 {
		return nil, nil
	}
	config.WriteDiagnostics(g.stderr, g.files, diags)
	have := map[string]bool{}
	for _, n := range installed {
		have[n] = true
	}
	missing := map[*config.PluginBlock]bool{}
	for _, pb := range cfg.PluginBlocks() {
		if pb.Plugin != "" && !have[pb.Binary()] {
			missing[pb] = true
		}
	}
	return missing, nil
}

// checkCredentials resolves every provider's credential reference, keeping
// nothing, and prints a warning with file and line for each one that cannot
// be found. It returns the number of warnings.
func (g *globals) checkCredentials(cfg *config.Config) int {
	var diags hcl.Diagnostics
	for _, p := range cfg.Providers {
		if p.Credential.IsZero() {
			continue
		}
		if _, err := credential.Resolve(p.Credential, g.lookupEnv); err != nil {
			rng := p.CredentialRange
			if rng == (hcl.Range{}) {
				rng = p.DefRange
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Credential not found",
				Detail: fmt.Sprintf("Provider %q: %v. axon reads the credential when it calls the provider, so every request to it will fail until the credential is there.",
					p.Name, err),
				Subject: rng.Ptr(),
			})
		}
	}
	if len(diags) > 0 {
		config.WriteDiagnostics(g.stderr, g.files, diags)
	}
	return len(diags)
}

func warningNote(n int) string {
	if n == 0 {
		return ""
	}
	return " (and " + plural(n, "warning") + ")"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// clientLines say what a block that runs a command-line client gets: the
// client version its preset was written for, where its own login lives,
// and the hosts its egress proxy reaches.
func clientLines(cfg *config.Config, pb *config.PluginBlock) []string {
	var lines []string
	if p := cfg.Provider(pb.Name); p != nil && pb.Kind == sdk.KindProvider && p.Preset != "" {
		if pr, ok := config.LookupPreset(p.Preset); ok && pr.WrittenFor != "" {
			lines = append(lines, fmt.Sprintf("preset: %s, written for %s (a newer client may change its flags or output)", pr.Name, pr.WrittenFor))
		}
	}
	if pb.Home != "" {
		lines = append(lines, fmt.Sprintf("credential: the client's own login in %s (outside the host: the one place axon keeps no key)", pb.Home))
	}
	if e, ok := cfg.EgressOf(pb); ok && e.Proxy {
		// The tunnels reach what a request may: a provider's base_url
		// origin and the allow list.
		hosts := append([]string{}, e.Allow...)
		if p := cfg.Provider(pb.Name); p != nil && pb.Kind == sdk.KindProvider {
			if u, err := url.Parse(p.BaseURL()); err == nil && u.Host != "" {
				hosts = append(hosts, u.Host)
			}
		}
		to := "no host (egress allow is empty)"
		if len(hosts) > 0 {
			to = strings.Join(hosts, ", ")
		}
		lines = append(lines, "egress: https proxy (CONNECT) to "+to)
	}
	return lines
}

// routingLine says how routing treats p: its tier, what it is good at,
// its budget, and whether a request is ever sent to it.
func routingLine(cfg *config.Config, p *config.Provider) string {
	tier := string(p.Tier)
	if tier == "" {
		tier = "unset"
	}
	line := "tier " + tier
	if len(p.GoodAt) > 0 {
		line += ", good at " + strings.Join(p.GoodAt, ", ")
	}
	if p.Budget != nil {
		line += fmt.Sprintf(", budget $%g/month", p.Budget.USDPerMonth)
	}
	switch cfg.Gate(p) {
	case config.GatePaid:
		if !cfg.Axon.Billing.Enabled {
			return line + "; never routed: paid tier and billing is off"
		}
		return line + "; never routed: paid tier and its block does not say enabled = true"
	case config.GateDisabled:
		return line + "; never routed: enabled = false"
	}
	if p.Tier == config.TierAPI {
		return line + "; routed only as the last resort (paid)"
	}
	return line + "; routed"
}
