package pluginrpc

import (
	"context"
	"strings"

	"google.golang.org/grpc"

	"github.com/axonhq/axon/internal/idletrim"
	"github.com/axonhq/axon/internal/pluginrpc/pb"
)

// axonMethods prefixes the full method name of every call to axon's own
// services (Base, Provider, Tool, Display).
var axonMethods = "/" + strings.TrimSuffix(pb.Base_ServiceDesc.ServiceName, "Base")

// countWork makes every call to axon's own services count as w's work
// while it runs. go-plugin's services (health, stdio, controller, broker)
// do not count: its stdio stream lasts as long as the process, and the
// host's health ping is not work.
func countWork(w idletrim.Work) []grpc.ServerOption {
	// begin counts a call to method and returns what ends it.
	begin := func(method string) (end func()) {
		if !strings.HasPrefix(method, axonMethods) {
			return func() {}
		}
		w.Begin()
		return w.End
	}
	unary := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		defer begin(info.FullMethod)()
		return h(ctx, req)
	}
	stream := func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		defer begin(info.FullMethod)()
		return h(srv, ss)
	}
	return []grpc.ServerOption{grpc.ChainUnaryInterceptor(unary), grpc.ChainStreamInterceptor(stream)}
}
