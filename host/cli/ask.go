package cli

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/axonhq/axon/host/chain"
	"github.com/axonhq/axon/host/daemon"
	"github.com/axonhq/axon/host/usage"
	"github.com/axonhq/axon/sdk"
)

func newAsk(g *globals) *cobra.Command {
	var chainName, task string
	var verbose bool
	cmd := &cobra.Command{
		Use:   "ask [--chain NAME] [--task TASK] [-v] PROMPT",
		Short: "Send one prompt through a chain and stream the answer",
		Long: "ask runs the chain in this process, with its own plugin processes (it does not " +
			"need `axon serve`, and never drives the displays). With -v it prints the decision trail.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return g.ask(ctx, chainName, task, verbose, strings.Join(args, " "))
		},
	}
	cmd.Flags().StringVar(&chainName, "chain", "default", "chain, or CHAIN/PROVIDER to pin one provider")
	cmd.Flags().StringVar(&task, "task", "", "what the prompt is for (\"code\"): routing tries the providers whose good_at holds it first")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "print the decision trail")
	return cmd
}

func (g *globals) ask(ctx context.Context, chainName, task string, verbose bool, prompt string) error {
	cfg, lock, err := g.load()
	if err != nil {
		return err
	}
	cfg.Displays = nil // the daemon owns the panels
	logger := g.logger()
	if !verbose {
		logger.SetLevel(hclogLevelQuiet)
	}
	facts, closeFacts := usageStore(ctx, cfg, logger)
	defer closeFacts() // after b.Close, which writes the turn's fact
	b, err := daemon.New(cfg, lock, logger, daemon.Options{Usage: facts})
	if err != nil {
		return err
	}
	defer b.Close()
	ch, err := b.For(usage.SourceAsk).Chain(chainName)
	if err != nil {
		return err
	}
	req := &sdk.Request{Messages: []sdk.Message{{Role: sdk.RoleUser, Parts: []sdk.Part{sdk.Text{Text: prompt}}}}}
	out := &terminalSink{g: g}
	var opts []chain.RunOption
	if task != "" {
		opts = append(opts, chain.Task(task))
	}
	res, err := ch.Run(ctx, req, out, nil, opts...)
	if out.wrote {
		fmt.Fprintln(g.stdout)
	}
	switch {
	case !verbose || res == nil:
	case res.Provider == "":
		fmt.Fprintf(g.stderr, "chain %s did not answer; trail: %s\n", res.Chain, chain.TrailLine(res.Route, res.Trail))
	default:
		fmt.Fprintf(g.stderr, "chain %s answered by %s (%s); trail: %s\n", res.Chain, res.Provider, orDash(res.Model), chain.TrailLine(res.Route, res.Trail))
	}
	if err == nil {
		return nil
	}
	var exhausted *chain.ExhaustedError
	if errors.As(err, &exhausted) {
		fmt.Fprintf(g.stderr, "axon: chain %q could not answer: %v\n", chainName, exhausted.Last)
		if hint := failureHint(cfg, exhausted); hint != "" {
			fmt.Fprintln(g.stderr, "hint: "+hint)
		} else {
			fmt.Fprintln(g.stderr, "hint: check that a provider is reachable (`axon check`), or configure one: see `axon.hcl` in the README, or set AXON_CHAIN=\"glm,ollama\" with the matching <PRESET>_API_KEY.")
		}
		return exitCode(1)
	}
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// terminalSink prints the answer as it streams.
type terminalSink struct {
	g     *globals
	wrote bool
}

func (t *terminalSink) Send(_ context.Context, ev sdk.Event) error {
	switch ev.Type {
	case sdk.EventTextDelta:
		t.wrote = true
		_, err := fmt.Fprint(t.g.stdout, ev.Text)
		return err
	case sdk.EventToolCall:
		t.wrote = true
		_, err := fmt.Fprintf(t.g.stdout, "\n[tool call %s %s]\n", ev.ToolCall.Name, ev.ToolCall.Input)
		return err
	}
	return nil
}
