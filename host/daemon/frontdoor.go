package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/hcl/config"
	"github.com/axonhq/axon/host/api"
	"github.com/axonhq/axon/host/panel"
	"github.com/axonhq/axon/host/session"
	"github.com/axonhq/axon/host/usage"
)

// The sessions API is mounted inside the front door.
var _ api.Mount = (*session.Handler)(nil)

// FrontDoor is everything `axon serve` serves, assembled in one place: a
// Daemon with its metrics and its usage store, its session manager, and
// the HTTP front door (host/api) with the sessions API mounted at
// /v1/sessions, the MCP delegate server at /mcp, the usage rollups at
// /v1/stats and the metrics at /metrics. One token check covers every route but /healthz, each route
// refusing in its own error format, and the metrics count every request,
// the sessions API's included.
type FrontDoor struct {
	daemon         *Daemon
	sessions       *session.Manager
	store          *usage.Store // nil: no usage store (it could not be opened, or Options.Usage was given)
	server         *http.Server
	drain          context.CancelFunc // ends the front door's responses still running
	logger         hclog.Logger
	load           func(context.Context) (*config.Config, *config.Lock, error) // Options.Load
	archiver       *archiver                                                   // the archive schedule (axon { archive {} })
	closeResponses func()                                                      // closes the Responses API's store
}

// NewFrontDoor builds the daemon (no plugin starts yet) with its metrics,
// starts its sessions (rebuilding their projections and resuming the runs
// a crash left open) and builds the front door over both. token is what
// every client must send, "" for none. opts tune the daemon as for New; a
// nil Metrics is made here, and without Usage the facts go to the store in
// the state directory (usage.Path). A store that cannot be opened is
// logged and leaves axon serving without usage facts: measuring never
// stops the broker.
func NewFrontDoor(ctx context.Context, cfg *config.Config, lock *config.Lock, logger hclog.Logger, token string, opts Options) (*FrontDoor, error) {
	if opts.Metrics == nil {
		opts.Metrics = NewMetrics()
	}
	var store *usage.Store
	if opts.Usage == nil {
		var err error
		if store, err = usage.OpenLazily(usage.Path(cfg.Axon.StateDir)); err != nil {
			logger.Error("usage facts will not be recorded", "error", err)
		} else {
			opts.Usage = store
		}
	}
	d, err := New(cfg, lock, logger, opts)
	if err != nil {
		if store != nil {
			store.Close()
		}
		return nil, err
	}
	for _, name := range d.sup.Names() {
		in, _ := d.sup.Instance(name)
		logger.Info("plugin sandbox", "plugin", name, "sandbox", in.Layers().String())
	}
	f := &FrontDoor{daemon: d, store: store, logger: logger, load: opts.Load}
	sessions, err := d.NewSessions()
	if err != nil {
		f.closeDaemon()
		return nil, err
	}
	if err := sessions.Start(ctx); err != nil {
		sessions.Shutdown(context.Background())
		f.closeDaemon()
		return nil, fmt.Errorf("sessions: %w", err)
	}
	f.archiver = d.startArchiver(sessions, logger)
	draining, drain := context.WithCancel(context.Background())
	kept, closeKept := responseStore(cfg, logger)
	f.closeResponses = closeKept
	// The front door's limits are api.Default*: HTTPServer puts the
	// connection limits on the http.Server, New the rest on the handler.
	handler := api.New(statsBackend{Daemon: d, store: store},
		api.WithToken(token),
		api.WithMetrics(opts.Metrics.Handler()),
		api.WithObserver(requestLog{metrics: opts.Metrics, log: logger.Named("frontdoor")}),
		api.WithShutdown(draining),
		api.WithHealth(sessions.Health),
		api.WithMount("/v1/sessions", sessions.Handler()),
		api.WithMount("/v1/reload", reloadHandler{f: f}),
		api.WithMount("/mcp", d.mcpMount(token)),
		api.WithResponses(kept),
	)
	pn := panel.New(panelSource{f: f}, panel.Options{Token: token, Editor: knobs{opts: opts.Loader}, Logger: logger})
	f.sessions, f.server, f.drain = sessions, api.HTTPServer(withTrim(withSources(withPanel(handler, pn)), newTrimmer())), drain
	return f, nil
}

// withPanel serves the panel at / and under /panel/, the front door the
// rest. The panel checks its own token or session cookie, Host and
// origin (host/panel).
func withPanel(front, pn http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == "/" || p == "/panel" || strings.HasPrefix(p, "/panel/") {
			pn.ServeHTTP(w, r)
			return
		}
		front.ServeHTTP(w, r)
	})
}

// Handler serves every route of the front door.
func (f *FrontDoor) Handler() http.Handler { return f.server.Handler }

// Serve answers on l until Shutdown or Close, then returns
// http.ErrServerClosed.
func (f *FrontDoor) Serve(l net.Listener) error { return f.server.Serve(l) }

// Shutdown stops serving within grace. The sessions go first: admission
// stops, tool calls finish within their own grace, the rest is sealed
// interrupted and the event streams end. Then the front door stops
// accepting and lets its requests finish until grace is over; the streams
// still running then end with their format's in-band error (a whole
// response with a 503 / 529) rather than a silent cut, and their
// connections are closed once that has gone out, or after drainWait at the
// latest. Call Close after it.
func (f *FrontDoor) Shutdown(grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	f.archiver.close()
	if err := f.sessions.Shutdown(ctx); err != nil {
		f.logger.Warn("sessions did not stop cleanly", "error", err)
	}
	err := f.server.Shutdown(ctx)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		f.logger.Warn("requests still running after the grace; ending them with an error")
		f.drain()
		dctx, dcancel := context.WithTimeout(context.Background(), drainWait)
		defer dcancel()
		_ = f.server.Shutdown(dctx) // waits for the handlers to return; the listeners are closed already
	case err != nil:
		return err
	}
	return nil
}

// drainWait is how long the front door's last error events may take to
// reach their clients after the grace.
const drainWait = time.Second

// Close cuts whatever still runs, closes the sessions (after Shutdown it
// only waits for them) and kills every plugin process.
func (f *FrontDoor) Close() {
	f.server.Close()
	f.archiver.close()
	f.sessions.Shutdown(context.Background())
	f.drain()
	f.closeDaemon()
}

// closeDaemon closes the daemon, which writes the usage facts still
// queued, then the store.
func (f *FrontDoor) closeDaemon() {
	f.daemon.Close()
	if f.closeResponses != nil {
		f.closeResponses()
	}
	if f.store != nil {
		f.store.Close()
	}
}
