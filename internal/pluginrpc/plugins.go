package pluginrpc

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/axonhq/axon/internal/idletrim"
	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

// Handshake is shared by the host and every plugin. The cookie only lets a
// plugin binary run by hand print a friendly message; it is not security.
var Handshake = plugin.HandshakeConfig{
	MagicCookieKey:   "AXON_PLUGIN",
	MagicCookieValue: "7d1c0b6e-axon-plugin-v1",
}

// ProtocolVersion is the go-plugin application protocol version. Bump only
// for incompatible changes; additive ones go through Info.APIVersions.
const ProtocolVersion = 1

// Names under which the services are dispensed.
const (
	NameBase     = "base"
	NameProvider = "provider"
	NameTool     = "tool"
	NameDisplay  = "display"
)

// maxMessage bounds one gRPC message (images travel inline).
const maxMessage = 64 << 20

// window is the flow-control window of every stream and connection,
// gRPC's own initial window: set, it stays fixed, which turns off gRPC's
// bandwidth-delay probing (a ping and its ack per burst of data, for
// nothing on a local socket) and keeps a slow reader's backpressure where
// it was.
const window = 64 << 10

// workers is how many goroutines each server keeps to run its streams (a
// stream beyond them gets a goroutine of its own, as without workers): a
// worker's stack has already grown to a call's depth, which a new
// goroutine grows by copying, a tenth of a provider plugin's CPU per
// request. 16 is an egress grant's default max_concurrent.
const workers = 16

// GRPCOptions are the message size limits both sides use.
func GRPCOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.MaxRecvMsgSize(maxMessage), grpc.MaxSendMsgSize(maxMessage),
		grpc.InitialWindowSize(window), grpc.InitialConnWindowSize(window),
		grpc.NumStreamWorkers(workers)}
}

// DialOptions are the client-side counterparts of GRPCOptions.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessage), grpc.MaxCallSendMsgSize(maxMessage)),
		grpc.WithInitialWindowSize(window), grpc.WithInitialConnWindowSize(window)}
}

// EgressDialOptions are DialOptions for the plugin's connection to the
// host's egress. Its calls wait for the connection to be ready, and a
// failed dial is retried after 10 ms (doubling to 1 s), not grpc's 1 s:
// go-plugin's multiplexed broker can refuse the first dial (its "knock")
// when it arrives before the host's listener for that id is registered,
// and a fail-fast call would then fail every egress request of a freshly
// started plugin for a second. A call still waits no longer than its
// context.
func EgressDialOptions() []grpc.DialOption {
	return append(DialOptions(),
		grpc.WithDefaultCallOptions(grpc.WaitForReady(true)),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 10 * time.Millisecond, Multiplier: 2, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: 5 * time.Second,
		}))
}

// NewGRPCServer is the ServeConfig.GRPCServer factory, called once in a
// plugin process. Its calls are the process's work for an idle trim
// (package idletrim): once none has run for idletrim.After, the plugin
// returns the heap its calls freed to the kernel.
func NewGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts, GRPCOptions()...)
	opts = append(opts, countWork(idletrim.New(idletrim.After, idletrim.MinAlloc))...)
	return grpc.NewServer(opts...)
}

// ServerPlugins is the plugin set a plugin binary serves: Base plus the
// service of its kind, both backed by impl.
func ServerPlugins(kind sdk.Kind, impl sdk.Plugin, logger hclog.Logger) map[int]plugin.PluginSet {
	set := plugin.PluginSet{NameBase: &grpcPlugin{name: NameBase, kind: kind, impl: impl, logger: logger}}
	set[string(kind)] = &grpcPlugin{name: string(kind), kind: kind, impl: impl, logger: logger}
	return map[int]plugin.PluginSet{ProtocolVersion: set}
}

// ClientPlugins is the plugin set the host dispenses from.
func ClientPlugins() map[int]plugin.PluginSet {
	set := plugin.PluginSet{}
	for _, n := range []string{NameBase, NameProvider, NameTool, NameDisplay} {
		set[n] = &grpcPlugin{name: n}
	}
	return map[int]plugin.PluginSet{ProtocolVersion: set}
}

// grpcPlugin is one dispensable service.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	name   string
	kind   sdk.Kind
	impl   sdk.Plugin
	logger hclog.Logger
}

var _ plugin.GRPCPlugin = (*grpcPlugin)(nil)

func (p *grpcPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	switch p.name {
	case NameBase:
		pb.RegisterBaseServer(s, &baseServer{kind: p.kind, impl: p.impl, broker: broker, logger: p.logger})
	case NameProvider:
		pb.RegisterProviderServer(s, &providerServer{impl: p.impl.(sdk.Provider)})
	case NameTool:
		pb.RegisterToolServer(s, &toolServer{impl: p.impl.(sdk.Tool)})
	case NameDisplay:
		pb.RegisterDisplayServer(s, &displayServer{impl: p.impl.(sdk.Display)})
	default:
		return fmt.Errorf("pluginrpc: unknown service %q", p.name)
	}
	return nil
}

// GRPCClient returns the host-side client shim. ctx is cancelled by go-plugin
// when the plugin process exits; the shims use it to report ErrPluginExited.
func (p *grpcPlugin) GRPCClient(ctx context.Context, broker *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	r := remote{done: ctx}
	switch p.name {
	case NameBase:
		return &BaseClient{remote: r, client: pb.NewBaseClient(conn), broker: broker}, nil
	case NameProvider:
		return &ProviderClient{remote: r, client: pb.NewProviderClient(conn)}, nil
	case NameTool:
		return &ToolClient{remote: r, client: pb.NewToolClient(conn)}, nil
	case NameDisplay:
		return &DisplayClient{remote: r, client: pb.NewDisplayClient(conn)}, nil
	}
	return nil, fmt.Errorf("pluginrpc: unknown service %q", p.name)
}

// remote is what every client shim shares: knowledge of whether the plugin
// process is gone.
type remote struct{ done context.Context }

func (r remote) exited() bool { return r.done != nil && r.done.Err() != nil }

// err reads the failure of a call made with ctx.
func (r remote) err(ctx context.Context, err error) error {
	return fromStatus(err, r.exited, ctx.Err() == nil)
}

// clamp32 converts for proto int32 fields without silent wrap-around.
func clamp32(n int) int32 {
	if n > math.MaxInt32 {
		return math.MaxInt32
	}
	return int32(n)
}
