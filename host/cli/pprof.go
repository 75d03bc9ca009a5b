package cli

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/axonhq/axon/host/daemon"
	"github.com/axonhq/axon/host/supervisor"
)

// profiling is `axon serve`'s opt-in profiling, for benchmarks: the host's
// net/http/pprof handlers on a listener of their own, and a directory the
// plugin processes write their pprof files into. Both are off unless a
// flag asks for them. The handlers are never on the front door: they are
// mounted on their own mux (importing net/http/pprof also fills
// http.DefaultServeMux, which nothing in axon serves).
type profiling struct {
	addr      string // --pprof: loopback host:port of the host's pprof listener
	pluginDir string // --plugin-profiles: where each plugin writes DIR/<instance>/{cpu,allocs}.pprof

	srv *http.Server
}

func (p *profiling) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&p.addr, "pprof", "", "serve the host's pprof profiles (/debug/pprof/) on this loopback host:port; off by default")
	cmd.Flags().StringVar(&p.pluginDir, "plugin-profiles", "", "every plugin process writes CPU and allocation profiles to DIR/<instance>/ when it stops; off by default")
}

// start opens the pprof listener and prepares the plugins' profile
// directory, as asked, and returns the daemon options that carry the
// latter. Call stop when serving ends.
func (p *profiling) start(logger hclog.Logger) (daemon.Options, error) {
	var opts daemon.Options
	if p.pluginDir != "" {
		dir, err := supervisor.PrepareProfileDir(p.pluginDir)
		if err != nil {
			return opts, fmt.Errorf("--plugin-profiles: %w", err)
		}
		opts.Supervisor.ProfileDir = dir
		logger.Info("plugin profiles on", "dir", dir)
	}
	if p.addr == "" {
		return opts, nil
	}
	l, err := listenPprof(p.addr)
	if err != nil {
		return opts, err
	}
	p.srv = &http.Server{Handler: pprofMux(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := p.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("pprof listener", "error", err)
		}
	}()
	logger.Info("pprof listening", "addr", "http://"+l.Addr().String()+"/debug/pprof/")
	return opts, nil
}

func (p *profiling) stop() {
	if p.srv != nil {
		p.srv.Close()
	}
}

// listenPprof listens on addr, which must be loopback: profiles show the
// host's memory and code paths.
func listenPprof(addr string) (net.Listener, error) {
	if !isLoopback(addr) {
		return nil, fmt.Errorf("--pprof %s: the pprof listener must be on a loopback address (127.0.0.1:PORT or [::1]:PORT)", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof: %w", err)
	}
	if a, ok := l.Addr().(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
		l.Close()
		return nil, fmt.Errorf("--pprof %s: resolved to %s, not loopback", addr, l.Addr())
	}
	return l, nil
}

func pprofMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index) // and every named profile: allocs, heap, goroutine, …
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
