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

	"github.com/axonhq/axon/host/api"
	"github.com/axonhq/axon/host/daemon"
	"github.com/axonhq/axon/host/session"
)

func newServe(g *globals) *cobra.Command {
	var grace time.Duration
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the broker: the OpenAI- and Anthropic-compatible front door",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return g.serve(ctx, grace)
		},
	}
	cmd.Flags().DurationVar(&grace, "grace", 10*time.Second, "how long in-flight requests may finish after SIGTERM")
	return cmd
}

func (g *globals) serve(ctx context.Context, grace time.Duration) error {
	cfg, lock, err := g.load()
	if err != nil {
		return err
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
	metrics := daemon.NewMetrics()
	b, err := daemon.New(cfg, lock, logger, daemon.Options{Metrics: metrics})
	if err != nil {
		return err
	}
	defer b.Close()
	for _, name := range b.Supervisor().Names() {
		in, _ := b.Supervisor().Instance(name)
		logger.Info("plugin sandbox", "plugin", name, "sandbox", in.Layers().String())
	}

	sessions, err := startSessions(ctx, cfg, b, logger)
	if err != nil {
		return err
	}
	defer sessions.Shutdown(context.Background()) // early returns; after the graceful one below it only waits
	// drain ends the front door's responses still running once the grace
	// is over, each with an error of its client's format.
	draining, drain := context.WithCancel(context.Background())
	defer drain()
	// The front door's limits are its defaults (api.Default*); the same
	// options give the handler and the http.Server theirs.
	opts := []api.Option{api.WithToken(token), api.WithMetrics(metrics.Handler()), api.WithObserver(metrics), api.WithShutdown(draining),
		api.WithHealth(sessions.Health)}
	handler := mountSessions(api.New(b, opts...), sessions.Handler(session.WithToken(token)))
	srv := api.HTTPServer(handler, opts...)
	listeners, err := listen(cfg.Axon.Listen, cfg.Axon.UnixSocket)
	if err != nil {
		return err
	}
	errc := make(chan error, len(listeners))
	for _, l := range listeners {
		go func() { errc <- srv.Serve(l) }()
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
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	// Sessions first: stop admission, let tool calls finish within their
	// grace, seal the rest interrupted, end the event streams.
	if err := sessions.Shutdown(sctx); err != nil {
		logger.Warn("sessions did not stop cleanly", "error", err)
	}
	err = srv.Shutdown(sctx)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		// The grace is over. The streams still running end with an in-band
		// error event (a whole response with a 503 / 529) rather than a
		// silent cut; their connections are closed once that has gone out,
		// or after drainWait at the latest.
		logger.Warn("requests still running after the grace; ending them with an error")
		drain()
		dctx, dcancel := context.WithTimeout(context.Background(), drainWait)
		defer dcancel()
		_ = srv.Shutdown(dctx) // waits for the handlers to return; the listeners are closed already
	case err != nil:
		return err
	}
	srv.Close() // whatever still runs is cut
	return nil
}

// drainWait is how long the front door's last error events may take to
// reach their clients after the grace.
const drainWait = time.Second

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
