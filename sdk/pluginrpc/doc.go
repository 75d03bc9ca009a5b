// Package pluginrpc is the go-plugin glue shared by the host and every
// plugin: the handshake, the plugin sets, the gRPC server shims that serve an
// sdk implementation, the client shims the host calls, the Egress callback
// over the go-plugin broker, and the mapping of sdk errors to gRPC statuses
// and back.
//
// Generated protobuf types never leave this package: everything it exports
// speaks the canonical types of sdk/spec. Converters are pure functions.
package pluginrpc
