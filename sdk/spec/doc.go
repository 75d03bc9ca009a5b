// Package spec is the contract between the axon host and its plugins: the
// canonical model types, the Provider, Tool and Display interfaces, the Egress
// interface and the error taxonomy.
//
// Plugin authors use these through package sdk, which re-exports every name;
// spec exists as its own leaf package so that the go-plugin glue in
// sdk/pluginrpc can depend on the types while sdk.Serve* depends on the glue.
// spec imports nothing from axon and does no I/O.
package spec
