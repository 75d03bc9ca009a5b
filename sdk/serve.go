package sdk

import (
	"os"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/axonhq/axon/sdk/pluginrpc"
)

// ServeOption adjusts how a plugin is served.
type ServeOption func(*serveOptions)

type serveOptions struct {
	logger hclog.Logger
}

// WithLogger replaces the default logger (JSON on the original stderr, which
// the host re-emits under the plugin instance's name).
func WithLogger(l hclog.Logger) ServeOption { return func(o *serveOptions) { o.logger = l } }

// ServeProvider serves p to the host. Call it from main; it blocks until the
// host stops the plugin. Never write to stdout in a plugin: it carries the
// go-plugin handshake.
func ServeProvider(p Provider, opts ...ServeOption) { serve(KindProvider, p, opts) }

// ServeTool serves t to the host. See ServeProvider.
func ServeTool(t Tool, opts ...ServeOption) { serve(KindTool, t, opts) }

// ServeDisplay serves d to the host. See ServeProvider.
func ServeDisplay(d Display, opts ...ServeOption) { serve(KindDisplay, d, opts) }

func serve(kind Kind, impl Plugin, opts []ServeOption) {
	var o serveOptions
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
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  pluginrpc.Handshake,
		VersionedPlugins: pluginrpc.ServerPlugins(kind, impl, o.logger),
		GRPCServer:       pluginrpc.NewGRPCServer,
		Logger:           o.logger,
	})
	if c, ok := impl.(Closer); ok {
		if err := c.Close(); err != nil {
			o.logger.Error("close", "error", err)
		}
	}
}
