package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/axonhq/axon/hcl/config"
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
	// Listen first: a port in use is said before any plugin starts or any
	// display draws.
	listeners, err := listen(cfg.Axon.Listen, cfg.Axon.UnixSocket)
	if err != nil {
		fmt.Fprintln(g.stderr, "axon:", err)
		if hint := listenHint(cfg, err); hint != "" {
			fmt.Fprintln(g.stderr, "hint: "+hint)
		}
		return errReported
	}
	for _, l := range listeners {
		defer l.Close() // the front door closes them too; this is for the early returns
	}
	// Refuse what `axon check` reports as an error, with the same
	// diagnostics, rather than serve requests that can only fail.
	if err := g.servePreflight(ctx, cfg, lock, logger); err != nil {
		return err
	}
	opts, err := prof.start(logger)
	if err != nil {
		return err
	}
	defer prof.stop()
	opts.Load = g.reloadLoader(logger)
	opts.Loader = config.Options{LookupEnv: g.lookupEnv, HomeDir: g.home, ExecutableDir: g.exeDir}
	front, err := daemon.NewFrontDoor(ctx, cfg, lock, logger, token, opts)
	if err != nil {
		return err
	}
	defer front.Close()
	errc := make(chan error, len(listeners))
	for _, l := range listeners {
		go func() { errc <- front.Serve(l) }()
		logger.Info("listening", "addr", l.Addr().String())
	}
	logger.Info("axon serving", "config", cfg.Source.String(), "chains", len(cfg.Chains), "plugin_dir", cfg.Axon.PluginDir)
	fmt.Fprintf(g.stdout, "axon listening on http://%s (config: %s)\n", listeners[0].Addr(), cfg.Source)

	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for ctx.Err() == nil {
		select {
		case err := <-errc:
			return fmt.Errorf("front door: %w", err)
		case <-hup:
			// Reload logs what it applied, or why it changed nothing.
			_, _ = front.Reload(ctx)
		case <-ctx.Done():
		}
	}
	logger.Info("shutting down", "grace", grace)
	return front.Shutdown(grace)
}

func listen(addr, unixSocket string) ([]net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, cannotListen(addr, err)
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
			return nil, cannotListen(unixSocket, err)
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

// listenError is an address that could not be listened on.
type listenError struct {
	addr string
	err  error
}

func (e *listenError) Error() string { return "cannot listen on " + e.addr + ": " + e.err.Error() }
func (e *listenError) Unwrap() error { return e.err }

// cannotListen names the address once: net's own error says it twice
// ("listen tcp ADDR: bind: ...").
func cannotListen(addr string, err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err
	}
	var sys *os.SyscallError
	if errors.As(err, &sys) {
		err = sys.Err
	}
	return &listenError{addr: addr, err: err}
}

// listenHint is what to do when the front door's address is in use.
func listenHint(cfg *config.Config, err error) string {
	var le *listenError
	if !errors.As(err, &le) || le.addr != cfg.Axon.Listen || !errors.Is(err, syscall.EADDRINUSE) {
		return ""
	}
	other := "127.0.0.1:7071"
	if host, port, err := net.SplitHostPort(cfg.Axon.Listen); err == nil {
		if p, err := strconv.Atoi(port); err == nil && p > 0 && p < 65535 {
			other = net.JoinHostPort(host, strconv.Itoa(p+1))
		}
	}
	if cfg.Source.Path == "" {
		return fmt.Sprintf("is another axon serve running? Stop it, or listen elsewhere: write axon { listen = %q } in a configuration file and pass it with --config.", other)
	}
	return fmt.Sprintf("is another axon serve running? Stop it, or listen elsewhere: set axon { listen = %q } in %s, or serve another configuration with --config.", other, cfg.Source.Path)
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
