// Package pluginrpc is the go-plugin glue shared by the host and every
// plugin: the handshake, the plugin sets, the gRPC server shims that serve an
// sdk implementation, the client shims the host calls, the Egress callback
// over the go-plugin broker, the mapping of sdk errors to gRPC statuses and
// back, and the count of a plugin's calls for its idle trim
// (internal/idletrim). It is internal to the axon module: the host and
// sdk/serve use it, and no plugin can import it, so its shape is never part
// of the SDK.
//
// Generated protobuf types never leave this package: everything it exports
// speaks the canonical types of package sdk. Converters are pure functions.
package pluginrpc
