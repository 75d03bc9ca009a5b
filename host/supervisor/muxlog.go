package supervisor

import (
	"log"

	"github.com/hashicorp/go-hclog"
)

// muxLogger is the logger handed to go-plugin. Its broker multiplexer
// (yamux) reports the end of every plugin connection as an error —
// "Failed to write header: broken pipe" once the process it talked to is
// gone — asynchronously, after Kill has returned. Those lines are the
// expected end of a stopped plugin, not news: they go out at debug level.
type muxLogger struct{ hclog.Logger }

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
