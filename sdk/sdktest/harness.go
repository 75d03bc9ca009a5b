package sdktest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/axonhq/axon/internal/pluginrpc"
	"github.com/axonhq/axon/sdk"
)

// Conn is a plugin served in-process over real go-plugin gRPC (a unix
// socket, the broker and the Egress callback included), seen from the
// host's side.
type Conn struct {
	Info sdk.Info
	rpc  *plugin.GRPCClient
}

// Serve runs impl in-process with plugin.TestPluginGRPCConn, fetches its
// Info and configures it with values (schema defaults applied) and egress
// (nil for none). Everything is torn down when the test ends.
func Serve(t testing.TB, kind sdk.Kind, impl sdk.Plugin, values json.RawMessage, egress sdk.Egress) *Conn {
	t.Helper()
	logger := hclog.New(&hclog.LoggerOptions{Name: "plugin", Output: testWriter{t}, Level: hclog.Debug})
	client, server := plugin.TestPluginGRPCConn(t, false, pluginrpc.ServerPlugins(kind, impl, logger)[pluginrpc.ProtocolVersion])
	_ = server // stopped by client.Close through go-plugin's controller; stopping it twice races
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense(pluginrpc.NameBase)
	if err != nil {
		t.Fatalf("dispense base: %v", err)
	}
	base := raw.(*pluginrpc.BaseClient)
	ctx := context.Background()
	info, err := base.Info(ctx)
	if err != nil {
		t.Fatalf("Info: %v", err)
	}
	full, err := ApplyDefaults(info.Config, values)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	if err := base.Configure(ctx, full, egress, false); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return &Conn{Info: info, rpc: client}
}

func (c *Conn) dispense(t testing.TB, name string) any {
	t.Helper()
	raw, err := c.rpc.Dispense(name)
	if err != nil {
		t.Fatalf("dispense %s: %v", name, err)
	}
	return raw
}

// Provider returns the host-side handle of a provider served by Serve.
func (c *Conn) Provider(t testing.TB) *pluginrpc.ProviderClient {
	return c.dispense(t, pluginrpc.NameProvider).(*pluginrpc.ProviderClient)
}

// Tool returns the host-side handle of a tool served by Serve.
func (c *Conn) Tool(t testing.TB) *pluginrpc.ToolClient {
	return c.dispense(t, pluginrpc.NameTool).(*pluginrpc.ToolClient)
}

// Display returns the host-side handle of a display served by Serve.
func (c *Conn) Display(t testing.TB) *pluginrpc.DisplayClient {
	return c.dispense(t, pluginrpc.NameDisplay).(*pluginrpc.DisplayClient)
}

// testWriter sends plugin logs to the test log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
