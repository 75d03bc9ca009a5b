package pluginrpc

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

type providerServer struct {
	pb.UnimplementedProviderServer
	impl sdk.Provider
}

func (s *providerServer) Models(ctx context.Context, _ *pb.Empty) (*pb.ModelsResponse, error) {
	out := &pb.ModelsResponse{}
	lister, ok := s.impl.(sdk.ModelLister)
	if !ok {
		return out, nil
	}
	ms, err := lister.Models(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	for _, m := range ms {
		out.Models = append(out.Models, &pb.Model{Id: m.ID, ContextWindow: m.ContextWindow, MaxOutputTokens: m.MaxOutputTokens})
	}
	return out, nil
}

func (s *providerServer) Generate(req *pb.GenerateRequest, stream pb.Provider_GenerateServer) error {
	sink := &streamSink{stream: stream}
	return toStatus(s.impl.Generate(stream.Context(), requestFromProto(req), sink))
}

// streamSink sends events on a gRPC stream; safe for concurrent Send.
type streamSink struct {
	mu     sync.Mutex
	stream pb.Provider_GenerateServer
}

func (s *streamSink) Send(ctx context.Context, ev sdk.Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stream.Send(eventToProto(ev))
}

// ProviderClient is the host's handle on a provider plugin.
type ProviderClient struct {
	remote
	client pb.ProviderClient
}

// Models lists the models the provider serves.
func (c *ProviderClient) Models(ctx context.Context) ([]sdk.Model, error) {
	resp, err := c.client.Models(ctx, &pb.Empty{})
	if err != nil {
		return nil, c.err(ctx, err)
	}
	var out []sdk.Model
	for _, m := range resp.GetModels() {
		out = append(out, sdk.Model{ID: m.GetId(), ContextWindow: m.GetContextWindow(), MaxOutputTokens: m.GetMaxOutputTokens()})
	}
	return out, nil
}

// Generate streams the plugin's events into out. If the plugin process dies
// mid-stream the error is sdk.ErrPluginExited.
func (c *ProviderClient) Generate(ctx context.Context, req *sdk.Request, out sdk.Sink) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.client.Generate(ctx, requestToProto(req))
	if err != nil {
		return c.err(ctx, err)
	}
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return c.err(ctx, err)
		}
		if err := out.Send(ctx, eventFromProto(ev)); err != nil {
			return err
		}
	}
}
