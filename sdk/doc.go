// Package sdk is the public API for axon plugin authors: the canonical model
// types, the Provider, Tool and Display interfaces, the error taxonomy, the
// Egress HTTP client and the Serve functions.
//
// A plugin imports only this package (and sdk/sdktest in its tests). It never
// opens a socket and never holds a credential: every network call goes through
// the Egress the host hands it at configure time, and the host injects
// credentials on the way out.
package sdk

//go:generate sh -c "go run ./internal/genalias ./spec | gofmt > spec_alias.go"
