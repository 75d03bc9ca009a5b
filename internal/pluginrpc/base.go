package pluginrpc

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

// baseServer serves Info and Configure for any kind.
type baseServer struct {
	pb.UnimplementedBaseServer
	kind   sdk.Kind
	impl   sdk.Plugin
	broker *plugin.GRPCBroker
	logger hclog.Logger

	mu    sync.Mutex
	proxy *loopbackProxy // started by the first Configure with egress_proxy
}

func (s *baseServer) Info(context.Context, *pb.Empty) (*pb.InfoResponse, error) {
	return infoToProto(CompleteInfo(s.impl.Info(), s.kind)), nil
}

func (s *baseServer) Configure(ctx context.Context, req *pb.ConfigureRequest) (*pb.Empty, error) {
	cfg := sdk.Config{Values: json.RawMessage(req.GetConfigJson()), Logger: s.logger}
	if id := req.GetEgressBrokerId(); id != 0 {
		conn, err := s.broker.DialWithOptions(id, EgressDialOptions()...)
		if err != nil {
			return nil, toStatus(sdk.Transientf("dial host egress: %v", err))
		}
		client := pb.NewEgressClient(conn)
		cfg.Egress = &egressClient{client: client}
		if req.GetEgressProxy() {
			url, err := s.startProxy(client)
			if err != nil {
				return nil, toStatus(sdk.Transientf("%v", err))
			}
			cfg.Proxy = url
		}
	}
	if err := s.impl.Configure(ctx, cfg); err != nil {
		return nil, toStatus(err)
	}
	return &pb.Empty{}, nil
}

// CompleteInfo fills what Serve knows when the plugin left it empty.
func CompleteInfo(i sdk.Info, kind sdk.Kind) sdk.Info {
	if i.Kind == "" {
		i.Kind = kind
	}
	if len(i.APIVersions) == 0 {
		i.APIVersions = []string{sdk.APIVersion}
	}
	return i
}

// BaseClient is the host's handle on a plugin's Base service.
type BaseClient struct {
	remote
	client pb.BaseClient
	broker *plugin.GRPCBroker
}

// Info fetches the plugin's static metadata.
func (c *BaseClient) Info(ctx context.Context) (sdk.Info, error) {
	resp, err := c.client.Info(ctx, &pb.Empty{})
	if err != nil {
		return sdk.Info{}, c.err(ctx, err)
	}
	return infoFromProto(resp), nil
}

// startProxy starts the process's HTTPS proxy on the first Configure that
// asks for it and returns its URL; a later Configure keeps the same
// listener, now carried over the newest egress connection.
func (s *baseServer) startProxy(client pb.EgressClient) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proxy == nil {
		p, err := startProxy(client, s.logger)
		if err != nil {
			return "", err
		}
		s.proxy = p
	}
	s.proxy.setClient(client)
	return s.proxy.url, nil
}

// Configure sends the plugin-owned values and, when egress is not nil,
// serves it to the plugin over the go-plugin broker (once per process).
// With proxy (and an egress that is a Tunneler) the plugin runs the HTTPS
// proxy on its loopback and the host serves its tunnels; without it every
// Tunnel call is refused.
func (c *BaseClient) Configure(ctx context.Context, values json.RawMessage, egress sdk.Egress, proxy bool) error {
	req := &pb.ConfigureRequest{ConfigJson: values}
	if egress != nil {
		id := c.broker.NextId()
		go c.broker.AcceptAndServe(id, func(opts []grpc.ServerOption) *grpc.Server {
			s := grpc.NewServer(append(opts, GRPCOptions()...)...)
			pb.RegisterEgressServer(s, &egressServer{impl: egress, proxy: proxy})
			return s
		})
		req.EgressBrokerId = id
		req.EgressProxy = proxy
	}
	_, err := c.client.Configure(ctx, req)
	return c.err(ctx, err)
}
