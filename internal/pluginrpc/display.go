package pluginrpc

import (
	"context"

	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

type displayServer struct {
	pb.UnimplementedDisplayServer
	impl sdk.Display
}

func (s *displayServer) Caps(ctx context.Context, _ *pb.Empty) (*pb.DisplayCaps, error) {
	c, err := s.impl.Caps(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	return capsToProto(c), nil
}

func (s *displayServer) Show(ctx context.Context, f *pb.Frame) (*pb.Empty, error) {
	return &pb.Empty{}, toStatus(s.impl.Show(ctx, frameFromProto(f)))
}

func (s *displayServer) Halt(ctx context.Context, _ *pb.Empty) (*pb.Empty, error) {
	return &pb.Empty{}, toStatus(s.impl.Halt(ctx))
}

// DisplayClient is the host's handle on a display plugin.
type DisplayClient struct {
	remote
	client pb.DisplayClient
}

// Caps describes the display.
func (c *DisplayClient) Caps(ctx context.Context) (sdk.DisplayCaps, error) {
	resp, err := c.client.Caps(ctx, &pb.Empty{})
	if err != nil {
		return sdk.DisplayCaps{}, c.err(ctx, err)
	}
	return capsFromProto(resp), nil
}

// Show draws one frame.
func (c *DisplayClient) Show(ctx context.Context, f sdk.Frame) error {
	_, err := c.client.Show(ctx, frameToProto(f))
	return c.err(ctx, err)
}

// Halt sleeps or blanks the display.
func (c *DisplayClient) Halt(ctx context.Context) error {
	_, err := c.client.Halt(ctx, &pb.Empty{})
	return c.err(ctx, err)
}
