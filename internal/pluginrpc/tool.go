package pluginrpc

import (
	"context"
	"encoding/json"

	"github.com/axonhq/axon/internal/pluginrpc/pb"
	"github.com/axonhq/axon/sdk"
)

type toolServer struct {
	pb.UnimplementedToolServer
	impl sdk.Tool
}

func (s *toolServer) Tools(ctx context.Context, _ *pb.Empty) (*pb.ToolsResponse, error) {
	ts, err := s.impl.Tools(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	out := &pb.ToolsResponse{}
	for _, t := range ts {
		out.Tools = append(out.Tools, toolSpecToProto(t))
	}
	return out, nil
}

func (s *toolServer) Call(ctx context.Context, req *pb.CallRequest) (*pb.ToolResultPart, error) {
	res, err := s.impl.Call(ctx, sdk.Invocation{
		CallID: req.GetCallId(), Name: req.GetName(), Input: json.RawMessage(req.GetInputJson()),
		IdempotencyKey: req.GetIdempotencyKey(),
	})
	if err != nil {
		return nil, toStatus(err)
	}
	if res.CallID == "" {
		res.CallID = req.GetCallId()
	}
	return toolResultToProto(res), nil
}

// ToolClient is the host's handle on a tool plugin.
type ToolClient struct {
	remote
	client pb.ToolClient
}

// Tools lists the tools the plugin serves.
func (c *ToolClient) Tools(ctx context.Context) ([]sdk.ToolSpec, error) {
	resp, err := c.client.Tools(ctx, &pb.Empty{})
	if err != nil {
		return nil, c.err(ctx, err)
	}
	var out []sdk.ToolSpec
	for _, t := range resp.GetTools() {
		out = append(out, toolSpecFromProto(t))
	}
	return out, nil
}

// Call runs one tool call.
func (c *ToolClient) Call(ctx context.Context, inv sdk.Invocation) (sdk.ToolResult, error) {
	resp, err := c.client.Call(ctx, &pb.CallRequest{
		CallId: inv.CallID, Name: inv.Name, InputJson: inv.Input, IdempotencyKey: inv.IdempotencyKey,
	})
	if err != nil {
		return sdk.ToolResult{}, c.err(ctx, err)
	}
	return toolResultFromProto(resp), nil
}
