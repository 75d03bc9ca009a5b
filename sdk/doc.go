// Package sdk is the contract between the axon host and its plugins, and the
// public API plugin authors write against: the canonical model types, the
// Provider, Tool and Display interfaces, the error taxonomy, and the Egress
// through which a plugin reaches the network (sdk.HTTPClient wraps it in an
// ordinary *http.Client). Package sdk/serve runs a plugin; sdk/sdktest tests
// one; sdk/sse reads server-sent events.
//
// A plugin imports these packages and the standard library. It never opens a
// socket and never holds a credential: every network call goes through the
// Egress the host hands it at configure time, and the host injects
// credentials on the way out. Package sdk itself imports only the standard
// library and go-hclog (the type of Config.Logger), and does no I/O of its
// own.
package sdk
