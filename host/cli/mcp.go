package cli

import (
	"context"
	"errors"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/axonhq/axon/host/daemon"
	"github.com/axonhq/axon/host/delegate"
)

func newMCP(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve axon's delegate tools to an MCP client over stdio",
		Long: "mcp serves the Model Context Protocol on stdin and stdout, for an orchestrating agent to " +
			"hand sub-tasks to the providers that set can_delegate = true: delegate_local, delegate and " +
			"delegate_targets. It runs the broker in this process, as ask does (it does not need `axon serve`, " +
			"and never drives the displays); its log goes to stderr. `axon serve` serves the same tools at /mcp.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return g.mcp(ctx)
		},
	}
}

// mcp runs the delegate server on stdio until the client hangs up.
func (g *globals) mcp(ctx context.Context) error {
	cfg, lock, err := g.load()
	if err != nil {
		return err
	}
	cfg.Displays = nil // the daemon owns the panels
	logger := g.logger()
	facts, closeFacts := usageStore(ctx, cfg, logger)
	defer closeFacts() // after b.Close, which writes the turns' facts
	b, err := daemon.New(cfg, lock, logger, daemon.Options{Usage: facts})
	if err != nil {
		return err
	}
	defer b.Close()
	err = delegate.NewServer(b.Delegates(), delegate.Options{Version: Version}).Run(ctx, &mcp.StdioTransport{})
	if errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil // the client hung up, or a signal ended the session
	}
	return err
}
