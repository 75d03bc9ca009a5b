// Package serve runs a plugin: call Provider, Tool or Display from main and
// the plugin talks to the host over go-plugin until the host stops it.
//
// It lives apart from package sdk because it depends on the go-plugin glue
// (internal to the axon module, so no plugin depends on it directly), and
// that glue depends on sdk's types. serve never opens a network socket of
// its own and never writes to stdout, which carries the go-plugin handshake.
package serve

import (
	"os"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/axonhq/axon/internal/pluginrpc"
	"github.com/axonhq/axon/sdk"
)

// Option adjusts how a plugin is served.
type Option func(*options)

type options struct {
	logger hclog.Logger
}

// WithLogger replaces the default logger (JSON on the original stderr, which
// the host re-emits under the plugin instance's name).
func WithLogger(l hclog.Logger) Option { return func(o *options) { o.logger = l } }

// Provider serves p to the host. Call it from main; it blocks until the host
// stops the plugin. Never write to stdout in a plugin: it carries the
// go-plugin handshake.
func Provider(p sdk.Provider, opts ...Option) { run(sdk.KindProvider, p, opts) }

// Tool serves t to the host. See Provider.
func Tool(t sdk.Tool, opts ...Option) { run(sdk.KindTool, t, opts) }

// Display serves d to the host. See Provider.
func Display(d sdk.Display, opts ...Option) { run(sdk.KindDisplay, d, opts) }

func run(kind sdk.Kind, impl sdk.Plugin, opts []Option) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.logger == nil {
		// Output nil means hclog.DefaultOutput: the process's original
		// stderr, captured before plugin.Serve redirects os.Stderr.
		o.logger = hclog.New(&hclog.LoggerOptions{
			Name:       impl.Info().Name,
			Level:      hclog.LevelFromString(os.Getenv("AXON_PLUGIN_LOG_LEVEL")),
			JSONFormat: true,
		})
	}
	stopProfiles := profileIfAsked(o.logger)
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  pluginrpc.Handshake,
		VersionedPlugins: pluginrpc.ServerPlugins(kind, impl, o.logger),
		GRPCServer:       pluginrpc.NewGRPCServer,
		Logger:           o.logger,
	})
	stopProfiles()
	if c, ok := impl.(sdk.Closer); ok {
		if err := c.Close(); err != nil {
			o.logger.Error("close", "error", err)
		}
	}
}
