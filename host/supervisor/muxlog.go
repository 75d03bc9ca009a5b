package supervisor

import (
	"log"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// muxLogger is the logger handed to go-plugin. Its broker multiplexer
// (yamux) reports the end of every plugin connection as an error —
// "Failed to write header: broken pipe" once the process it talked to is
// gone — asynchronously, after Kill has returned. Those lines are the
// expected end of a stopped plugin, not news: they go out at debug level.
type muxLogger struct{ hclog.Logger }

// Error and Warn demote the same lines from the plugin's own multiplexer,
// which go-plugin forwards from its stderr with "@module" ending in yamux:
// the plugin sees its host hang up when it is stopped.
func (l muxLogger) Error(msg string, args ...any) {
	if fromPluginMux(args) {
		l.Logger.Debug(msg, args...)
		return
	}
	l.Logger.Error(msg, args...)
}

func (l muxLogger) Warn(msg string, args ...any) {
	if fromPluginMux(args) {
		l.Logger.Debug(msg, args...)
		return
	}
	l.Logger.Warn(msg, args...)
}

func fromPluginMux(args []any) bool {
	for i := 0; i+1 < len(args); i += 2 {
		if k, _ := args[i].(string); k == "@module" {
			m, _ := args[i+1].(string)
			return m == "yamux" || strings.HasSuffix(m, ".yamux")
		}
	}
	return false
}

func (l muxLogger) Named(name string) hclog.Logger {
	if name == "yamux" {
		return debugOnly{l.Logger.Named(name)}
	}
	return muxLogger{l.Logger.Named(name)}
}

// debugOnly logs every line, whatever its level, at debug.
type debugOnly struct{ hclog.Logger }

func (l debugOnly) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	o := hclog.StandardLoggerOptions{}
	if opts != nil {
		o = *opts
	}
	o.ForceLevel = hclog.Debug
	return l.Logger.StandardLogger(&o)
}

func (l debugOnly) Error(msg string, args ...any) { l.Logger.Debug(msg, args...) }
func (l debugOnly) Warn(msg string, args ...any)  { l.Logger.Debug(msg, args...) }
