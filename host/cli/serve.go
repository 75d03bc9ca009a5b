package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/axonhq/axon/host/daemon"
)

func newServe(g *globals) *cobra.Command {
	var grace time.Duration
	var prof profiling
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the broker: the OpenAI- and Anthropic-compatible front door",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return g.serve(ctx, grace, &prof)
		},
	}
	cmd.Flags().DurationVar(&grace, "grace", 10*time.Second, "how long in-flight requests may finish after SIGTERM")
	prof.flags(cmd)
	return cmd
}

func (g *globals) serve(ctx context.Context, grace time.Duration, prof *profiling) error {
	cfg, lock, err := g.load()
	if err != nil {
		return err
	}
	// Refuse what `axon check` reports as an error, with the same
	// diagnostics, rather than serve requests that can only fail.
	if missing, err := g.checkBinaries(cfg); err != nil {
		return err
	} else if len(missing) > 0 {
		fmt.Fprintf(g.stderr, "axon: not serving: the binary of %s is not installed (see above)\n", plural(len(missing), "plugin block"))
		return errReported
	}
	logger := g.logger()
	token := ""
	if !isLoopback(cfg.Axon.Listen) {
		if token, err = readToken(cfg.Axon.TokenFile); err != nil {
			return err
		}
		if token == "" {
			return fmt.Errorf("listening on %s (not loopback) requires a bearer token; run `axon token` to create %s", cfg.Axon.Listen, cfg.Axon.TokenFile)
		}
	}
	opts, err := prof.start(logger)
	if err != nil {
		return err
	}
	defer prof.stop()
	front, err := daemon.NewFrontDoor(ctx, cfg, lock, logger, token, opts)
	if err != nil {
		return err
	}
	defer front.Close()
	listeners, err := listen(cfg.Axon.Listen, cfg.Axon.UnixSocket)
	if err != nil {
		return err
	}
	errc := make(chan error, len(listeners))
	for _, l := range listeners {
		go func() { errc <- front.Serve(l) }()
		logger.Info("listening", "addr", l.Addr().String())
	}
	logger.Info("axon serving", "config", cfg.Source.String(), "chains", len(cfg.Chains), "plugin_dir", cfg.Axon.PluginDir)
	fmt.Fprintf(g.stdout, "axon listening on http://%s (config: %s)\n", listeners[0].Addr(), cfg.Source)

	select {
	case err := <-errc:
		return fmt.Errorf("front door: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down", "grace", grace)
	return front.Shutdown(grace)
}

func listen(addr, unixSocket string) ([]net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	out := []net.Listener{l}
	if unixSocket != "" {
		if err := os.Remove(unixSocket); err != nil && !errors.Is(err, os.ErrNotExist) {
			l.Close()
			return nil, err
		}
		u, err := net.Listen("unix", unixSocket)
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("listen %s: %w", unixSocket, err)
		}
		if err := os.Chmod(unixSocket, 0o600); err != nil {
			l.Close()
			u.Close()
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// isLoopback reports whether host:port listens only on loopback.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
