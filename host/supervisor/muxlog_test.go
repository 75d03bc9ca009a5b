package supervisor

import (
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/axonhq/axon/host/internal/logbuf"
)

// TestMuxLoggerDemotesAStoppedPluginsMultiplexer: the plugin's own yamux
// error about its host hanging up (forwarded by go-plugin with its
// @module) is not shown at warn level; the plugin's other errors are.
func TestMuxLoggerDemotesAStoppedPluginsMultiplexer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		log    func(hclog.Logger)
		shown  bool
		marker string
	}{
		{name: "plugin yamux error", marker: "Failed to write body", log: func(l hclog.Logger) {
			l.Error("yamux: Failed to write body: use of closed network connection", "@module", "png.yamux")
		}},
		{name: "plugin yamux warning", marker: "keepalive", log: func(l hclog.Logger) {
			l.Warn("yamux: keepalive failed", "@module", "yamux")
		}},
		{name: "plugin error", marker: "panel busy", shown: true, log: func(l hclog.Logger) {
			l.Error("panel busy", "@module", "epd")
		}},
		{name: "host error", marker: "reading plugin stderr", shown: true, log: func(l hclog.Logger) {
			l.Error("reading plugin stderr", "error", "EOF")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			logs := &logbuf.Buffer{}
			base := hclog.New(&hclog.LoggerOptions{Name: "axon", Output: logs, Level: hclog.Warn})
			tc.log(muxLogger{base}.Named("axon-display-png"))
			if got := strings.Contains(logs.String(), tc.marker); got != tc.shown {
				t.Errorf("shown = %v, want %v:\n%s", got, tc.shown, logs)
			}
		})
	}
}
